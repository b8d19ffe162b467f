import Foundation
import IAPAuditModel

/// An iOS 6-style transaction receipt (`SKPaymentTransaction.transactionReceipt`, deprecated in iOS 7):
/// base64 of an old-style plist whose `purchase-info` is base64 of another old-style plist.
///
///     { "signature" = "<base64>"; "purchase-info" = "<base64>"; "environment" = "Sandbox"; "pod" = "100"; "signing-status" = "0"; }
///
/// Source: Apple, "Receipt Validation Programming Guide" (iOS 6 transaction receipts) and the
/// verifyReceipt iOS 6 `receipt` fields, which are the `purchase-info` keys with `_` for `-`
/// (`transaction-id` → `transaction_id`, `bid`, `bvrs`, `item-id`, `purchase-date-ms`…).
/// The signature is not checked (its format is Apple-private).
struct TransactionReceipt {
    /// `environment`: `Sandbox` in sandbox receipts; production receipts omit it (nil).
    var environment: String?
    /// `pod`, `signing-status`: Apple-internal values, as written.
    var pod: String?
    var signingStatus: String?
    /// The decoded `purchase-info` entries, keys as Apple wrote them (`transaction-id`, …).
    var purchaseInfo: [String: String]

    /// Decodes the outer plist text (already base64-decoded).
    /// - Throws: `ReceiptDecodingError` on a plist syntax error, a missing or non-base64
    ///   `purchase-info`, or a `purchase-info` entry that is not a string.
    init(plist: [UInt8]) throws {
        let outer = try OldStylePlist.parseDictionary(plist)
        func text(_ key: String) throws -> String? {
            switch outer[key] {
            case nil: return nil
            case .string(let value): return value
            case .dictionary: throw ReceiptDecodingError("iOS 6 transaction receipt: \"\(key)\" is a dictionary, expected text")
            }
        }
        environment = try text("environment")
        pod = try text("pod")
        signingStatus = try text("signing-status")
        guard let encoded = try text("purchase-info") else {
            throw ReceiptDecodingError("iOS 6 transaction receipt without \"purchase-info\"")
        }
        guard let decoded = ReceiptInput.base64Decode(encoded) else {
            throw ReceiptDecodingError("iOS 6 transaction receipt: \"purchase-info\" is not base64")
        }
        var info: [String: String] = [:]
        for (key, value) in try OldStylePlist.parseDictionary(decoded) {
            guard case .string(let string) = value else {
                throw ReceiptDecodingError("iOS 6 purchase-info: \"\(key)\" is a dictionary, expected text")
            }
            info[key] = string
        }
        purchaseInfo = info
    }

    /// `transaction-id`. Throws when absent or empty.
    func transactionId() throws -> String {
        guard let id = purchaseInfo["transaction-id"], !id.isEmpty else {
            throw ReceiptDecodingError("iOS 6 purchase-info has no \"transaction-id\"")
        }
        return id
    }

    /// `bid`: the app's bundle id.
    var bundleId: String? { nonEmpty("bid") }

    /// `purchase-date-ms`, else `purchase-date` (text): milliseconds since 1970 UTC.
    func purchaseDateMs() throws -> Int64? { try date("purchase-date-ms", "purchase-date") }

    /// The purchase as a `AppleTransaction` in section `transaction_receipt` (signature `not_checked`).
    /// - Throws: when a date, the quantity or a boolean is malformed.
    func item() throws -> AppleTransaction {
        var item = AppleTransaction(transactionId: try transactionId(), sections: ["transaction_receipt"])
        item.originalTransactionId = nonEmpty("original-transaction-id")
        item.productId = nonEmpty("product-id")
        if let quantity = nonEmpty("quantity") {
            guard let value = Int(quantity) else {
                throw ReceiptDecodingError("iOS 6 purchase-info: quantity \"\(quantity.prefix(40))\" is not a number")
            }
            item.quantity = value
        }
        item.purchaseDateMs = try purchaseDateMs()
        item.originalPurchaseDateMs = try date("original-purchase-date-ms", "original-purchase-date")
        item.expiresDateMs = try date("expires-date", "expires-date-formatted")
        item.cancellationDateMs = try date("cancellation-date-ms", "cancellation-date")
        item.webOrderLineItemId = nonEmpty("web-order-line-item-id")
        item.isTrialPeriod = try bool("is-trial-period")
        item.isInIntroOfferPeriod = try bool("is-in-intro-offer-period")
        item.signature = .notChecked
        return item
    }

    /// The purchase under verifyReceipt's iOS 6 `receipt` names (`-` → `_`), text values.
    /// When two keys map to one name (`a-b` and `a_b`), the key already spelled with `_` wins.
    var jsonObject: [String: Any] {
        var o: [String: Any] = [:]
        for (key, value) in purchaseInfo.sorted(by: { $0.key < $1.key }) {
            let name = key.replacingOccurrences(of: "-", with: "_")
            if o[name] == nil || name == key { o[name] = value }
        }
        return o
    }

    private func nonEmpty(_ key: String) -> String? {
        guard let value = purchaseInfo[key], !value.isEmpty else { return nil }
        return value
    }

    private func date(_ keys: String...) throws -> Int64? {
        for key in keys {
            guard let raw = nonEmpty(key) else { continue }
            guard let ms = Timestamp.parseMs(raw) else {
                throw ReceiptDecodingError("iOS 6 purchase-info: \"\(key)\" is not a date: \"\(raw.prefix(60))\"")
            }
            return ms
        }
        return nil
    }

    private func bool(_ key: String) throws -> Bool? {
        switch nonEmpty(key) {
        case nil: return nil
        case "true", "1": return true
        case "false", "0": return false
        case let other?: throw ReceiptDecodingError("iOS 6 purchase-info: \"\(key)\" is not a boolean: \"\(other.prefix(40))\"")
        }
    }
}
