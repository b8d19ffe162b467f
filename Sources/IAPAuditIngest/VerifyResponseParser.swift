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
        _ body: any RecordObject, at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, raw: String
    ) throws -> AppleRecord {
        guard let status = try body.integer("status") else {
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
            } else if receipt.has("transaction_id") {
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
            environment: try body.text("environment"),
            // Either spelling, named as Apple documents it.
            isRetryable: try (body.field("is-retryable") ?? body.field("is_retryable"))?.bool(named: "is-retryable"),
            bundleId: try (receipt?.field("bundle_id") ?? receipt?.field("bid"))?.text(named: "receipt.bundle_id"),
            receiptType: try receipt?.text("receipt_type", path: "receipt"),
            receiptCreationDateMs: try receipt.flatMap { try date($0, "receipt_creation_date", "receipt") },
            requestDateMs: try receipt.flatMap { try date($0, "request_date", "receipt") },
            items: items, rawJSON: raw)
        if let pending = body.field("pending_renewal_info") {
            response.pendingRenewals = try objects(pending, field: "pending_renewal_info").enumerated().map {
                try renewal($1, path: "pending_renewal_info[\($0)]")
            }
        }
        return response
    }

    /// An item of `pending_renewal_info`: the fields a JWS renewal info has, in snake_case.
    private static func renewal(_ o: any RecordObject, path: String) throws -> PendingRenewal {
        try RenewalInfoPayload.pendingRenewal(o, path: path, snakeCase: true) { try date(o, $0, path) }
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
        var item = AppleTransaction(transactionId: try o.requiredId("transaction_id", path: path), sections: [section])
        item.originalTransactionId = try o.id("original_transaction_id", path: path)
        item.productId = try o.id("product_id", path: path)
        item.quantity = try o.integer("quantity", path: path).map { Int($0) }
        item.purchaseDateMs = try date(o, "purchase_date", path)
        item.originalPurchaseDateMs = try date(o, "original_purchase_date", path)
        item.expiresDateMs = try date(o, "expires_date", path) ?? date(o, "expires_date_formatted", path)
        item.cancellationDateMs = try date(o, "cancellation_date", path)
        item.cancellationReason = try o.text("cancellation_reason", path: path)
        item.webOrderLineItemId = try o.id("web_order_line_item_id", path: path)
        item.inAppOwnershipType = try o.text("in_app_ownership_type", path: path)
        item.isTrialPeriod = try o.bool("is_trial_period", path: path)
        item.isInIntroOfferPeriod = try o.bool("is_in_intro_offer_period", path: path)
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
            // A number is epoch milliseconds, named by its key alone (as a log's timestamp is).
            if case .number? = value { return try o.timestamp(key) }
            guard let raw = try value?.text(named: "\(path).\(key)"), !raw.isEmpty else { continue }
            guard let ms = Timestamp.parseMs(raw) else {
                throw IngestError.badField("\(path).\(key)", "not a date: \"\(raw.prefix(60))\"")
            }
            return ms
        }
        return nil
    }
}
