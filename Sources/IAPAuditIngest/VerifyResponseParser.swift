import Foundation
import IAPAuditModel

/// Reads one Apple verifyReceipt response body, in every shape Apple sent.
///
/// Source: Apple, "verifyReceipt" → `responseBody`, `responseBody.Receipt`,
/// `responseBody.Latest_receipt_info`, `responseBody.Pending_renewal_info`; iOS 6 transaction
/// receipts (flat `receipt` with `bid`, `bvrs`, `item_id`) and their 21006 bodies.
enum VerifyResponseParser {
    /// - Parameters:
    ///   - body: Apple's response object.
    ///   - raw: the original text it came from, stored unchanged.
    /// - Throws: `IngestError` when `status` is missing or not a number, or an item lacks its
    ///   `transaction_id`.
    static func parse(
        _ body: [String: Any], at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, raw: String
    ) throws -> AppleRecord {
        try parse(FoundationObject(body), at: location, requestId: requestId, receivedAtMs: receivedAtMs, raw: raw)
    }

    static func parse(
        _ body: any RecordObject, at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, raw: String
    ) throws -> AppleRecord {
        guard let status = try JSONField.integer(body.field("status"), field: "status") else {
            throw IngestError.missingField("status")
        }
        var receipt: (any RecordObject)? = nil
        if case .object(let o)? = body.field("receipt") { receipt = o }
        var items: [AppleTransaction] = []
        var index: [String: Int] = [:]
        func add(_ item: AppleTransaction) {
            if let at = index[item.transactionId] {
                items[at].merge(item)
            } else {
                index[item.transactionId] = items.count
                items.append(item)
            }
        }
        if let receipt {
            if let inApp = receipt.field("in_app") {
                for (i, o) in try objects(inApp, field: "receipt.in_app").enumerated() {
                    add(try item(o, section: "in_app", path: "receipt.in_app[\(i)]"))
                }
            } else if receipt.field("transaction_id") != nil {
                add(try item(receipt, section: "receipt", path: "receipt"))
            }
        }
        for section in ["latest_receipt_info", "latest_expired_receipt_info"] {
            guard let value = body.field(section) else { continue }
            for (i, o) in try objects(value, field: section).enumerated() {
                add(try item(o, section: section, path: "\(section)[\(i)]"))
            }
        }
        var response = AppleRecord(
            location: location, requestId: requestId, receivedAtMs: receivedAtMs, status: Int(status),
            environment: try JSONField.text(body.field("environment"), field: "environment"),
            isRetryable: try JSONField.bool(body.field("is-retryable") ?? body.field("is_retryable"), field: "is-retryable"),
            bundleId: try JSONField.text(receipt?.field("bundle_id") ?? receipt?.field("bid"), field: "receipt.bundle_id"),
            receiptType: try JSONField.text(receipt?.field("receipt_type"), field: "receipt.receipt_type"),
            items: items, rawJSON: raw)
        if let pending = body.field("pending_renewal_info") {
            response.pendingRenewals = try objects(pending, field: "pending_renewal_info").enumerated().map {
                try renewal($1, path: "pending_renewal_info[\($0)]")
            }
        }
        return response
    }

    private static func renewal(_ o: any RecordObject, path: String) throws -> PendingRenewal {
        var info = PendingRenewal()
        info.originalTransactionId = try JSONField.id(o.field("original_transaction_id"), field: "\(path).original_transaction_id")
        info.productId = try JSONField.id(o.field("product_id"), field: "\(path).product_id")
        info.autoRenewProductId = try JSONField.id(o.field("auto_renew_product_id"), field: "\(path).auto_renew_product_id")
        info.autoRenewStatus = try JSONField.integer(o.field("auto_renew_status"), field: "\(path).auto_renew_status").map { Int($0) }
        info.expirationIntent = try JSONField.integer(o.field("expiration_intent"), field: "\(path).expiration_intent").map { Int($0) }
        info.isInBillingRetryPeriod = try JSONField.bool(o.field("is_in_billing_retry_period"), field: "\(path).is_in_billing_retry_period")
        info.gracePeriodExpiresDateMs = try date(o, "grace_period_expires_date", path)
        return info
    }

    /// An array of objects, or one object (Apple sends `latest_receipt_info` both ways).
    private static func objects(_ value: FieldValue, field: String) throws -> [any RecordObject] {
        switch value {
        case .object(let one): return [one]
        case .null: return []
        case .array(let array):
            return try array.map {
                guard case .object(let o) = $0 else { throw IngestError.badField(field, "expected objects in the array") }
                return o
            }
        default: throw IngestError.badField(field, "expected an array or an object")
        }
    }

    private static func item(_ o: any RecordObject, section: String, path: String) throws -> AppleTransaction {
        guard let id = try JSONField.id(o.field("transaction_id"), field: "\(path).transaction_id") else {
            throw IngestError.missingField("\(path).transaction_id")
        }
        var item = AppleTransaction(transactionId: id, sections: [section])
        item.originalTransactionId = try JSONField.id(o.field("original_transaction_id"), field: "\(path).original_transaction_id")
        item.productId = try JSONField.id(o.field("product_id"), field: "\(path).product_id")
        item.quantity = try JSONField.integer(o.field("quantity"), field: "\(path).quantity").map { Int($0) }
        item.purchaseDateMs = try date(o, "purchase_date", path)
        item.originalPurchaseDateMs = try date(o, "original_purchase_date", path)
        item.expiresDateMs = try date(o, "expires_date", path) ?? date(o, "expires_date_formatted", path)
        item.cancellationDateMs = try date(o, "cancellation_date", path)
        item.cancellationReason = try JSONField.text(o.field("cancellation_reason"), field: "\(path).cancellation_reason")
        item.webOrderLineItemId = try JSONField.id(o.field("web_order_line_item_id"), field: "\(path).web_order_line_item_id")
        item.inAppOwnershipType = try JSONField.text(o.field("in_app_ownership_type"), field: "\(path).in_app_ownership_type")
        item.isTrialPeriod = try JSONField.bool(o.field("is_trial_period"), field: "\(path).is_trial_period")
        return item
    }

    /// The keys tried for each date, made once.
    private static let dateKeys: [String: [String]] = Dictionary(
        uniqueKeysWithValues: [
            "purchase_date", "original_purchase_date", "expires_date", "expires_date_formatted", "cancellation_date",
            "grace_period_expires_date",
        ].map { ($0, [$0 + "_ms", $0, $0 + "_pst"]) })

    /// `<name>_ms` when present, else the text form `<name>` (Etc/GMT), else `<name>_pst`.
    private static func date(_ o: any RecordObject, _ name: String, _ path: String) throws -> Int64? {
        for key in dateKeys[name] ?? [name + "_ms", name, name + "_pst"] {
            let value = o.field(key)
            if case .number? = value { return try RecordFields.optionalTimestamp(o, key) }
            guard let raw = try JSONField.text(value, field: "\(path).\(key)"), !raw.isEmpty else { continue }
            guard let ms = Timestamp.parseMs(raw) else {
                throw IngestError.badField("\(path).\(key)", "not a date: \"\(raw.prefix(60))\"")
            }
            return ms
        }
        return nil
    }
}
