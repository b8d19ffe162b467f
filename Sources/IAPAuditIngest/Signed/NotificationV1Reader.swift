import Foundation
import IAPAuditModel

/// Reads an App Store Server Notification V1 (status update) body into one `AppleRecord`
/// (source `notification_v1`, signature `not_checked`: V1 bodies are unsigned).
///
/// Source: Apple, "App Store Server Notifications V1" → `responseBody` (deprecated): `notification_type`,
/// `environment` (`PROD` → `Production`, `Sandbox`), `unified_receipt` {`status`, `environment` (also kept
/// as `receiptEnvironment`), `latest_receipt_info`, `pending_renewal_info`} read as a verifyReceipt body by
/// `VerifyResponseParser`; older bodies (before 2020) carry `latest_receipt_info` /
/// `latest_expired_receipt_info` as single objects at the top level (flat iOS 6 names: `bid`,
/// `expires_date_formatted`), and CANCEL bodies a top-level `cancellation_date(_ms)` for the
/// purchase named by `web_order_line_item_id`. Dates are milliseconds since 1970 UTC.
enum NotificationV1Reader {
    /// - Throws: `IngestError` when `notification_type` is missing, or a listed purchase lacks its
    ///   `transaction_id` or has a field of the wrong type (named as `unified_receipt.<field>`).
    static func read(_ o: any RecordObject, context: SignedRecordReader.Context) throws -> AppleRecord {
        guard let type = try o.text("notification_type") else { throw IngestError.missingField("notification_type") }
        if type.isEmpty {
            throw IngestError.badField(
                "notification_type", "is empty (Apple always names the type: DID_RENEW, CANCEL, REFUND…); keep the body as Apple sent it")
        }
        let unified = try o.object("unified_receipt")
        // `unified_receipt` read as a verifyReceipt body, its `status` 0 when it has none.
        let body = AmendedRecord(base: unified, kept: nil, amendments: unified?.hasValue("status") == true ? [:] : ["status": zero])
        var response = try parse(body, context: context, prefix: unified == nil ? "" : "unified_receipt.")
        let older = ["latest_receipt_info", "latest_expired_receipt_info"].filter { o.has($0) }
        if !older.isEmpty {
            let legacy = AmendedRecord(base: o, kept: older, amendments: ["status": zero])
            let top = try parse(legacy, context: context, prefix: "")
            for item in top.items {
                if let at = response.items.firstIndex(where: { $0.transactionId == item.transactionId }) {
                    response.items[at].merge(item)
                } else {
                    response.items.append(item)
                }
            }
        }
        response.bundleId =
            try response.bundleId ?? o.text("bid") ?? unified.flatMap { try itemBundleId($0) } ?? itemBundleId(o)
        let environment = try o.text("environment").flatMap { $0.isEmpty ? nil : $0 }
        // The receipt's own word is kept beside the body's: `PROD` over a Sandbox receipt proves no
        // production payment (semantics.md rule 24), whichever of the two is taken as the environment.
        response.receiptEnvironment = unified == nil ? nil : response.environment.map(Environment.normalized)
        response.environment = (environment ?? response.environment).map(Environment.normalized)
        try applyCancellation(o, to: &response)
        response.source = .notificationV1
        response.signature = .notChecked
        response.notification = NotificationInfo(notificationUUID: nil, notificationType: type, subtype: nil)
        for i in response.items.indices { response.items[i].notificationType = type }
        return response
    }

    /// A status of 0 (success) for a body that states none.
    private static var zero: FieldValue { .number("0") }

    private static func parse(_ body: any RecordObject, context: SignedRecordReader.Context, prefix: String) throws -> AppleRecord {
        do {
            return try VerifyResponseParser.parse(
                body, at: context.location, requestId: context.requestId, receivedAtMs: context.receivedAtMs, raw: context.raw)
        } catch IngestError.badField(let field, let message) {
            throw IngestError.badField(prefix + field, message)
        } catch IngestError.missingField(let field) {
            throw IngestError.missingField(prefix + field)
        }
    }

    /// `bid` of the first `latest_receipt_info` (else `latest_expired_receipt_info`) entry: older
    /// bodies use flat iOS 6 names.
    private static func itemBundleId(_ o: any RecordObject) throws -> String? {
        for key in ["latest_receipt_info", "latest_expired_receipt_info"] {
            var first: (any RecordObject)? = nil
            switch o.field(key) {
            case .object(let one)?: first = one
            case .array(let array)?: if case .object(let one)? = array.first { first = one }
            default: break
            }
            if let bid = try first?.text("bid", path: key) { return bid }
        }
        return nil
    }

    /// A top-level `cancellation_date_ms` (else `cancellation_date`) applies to the purchase whose
    /// `web_order_line_item_id` the body names, or to the only one listed; a note when none matches.
    private static func applyCancellation(_ o: any RecordObject, to response: inout AppleRecord) throws {
        let ms: Int64?
        if let value = try o.integer("cancellation_date_ms") {
            guard Timestamp.validRange.contains(value) else {
                throw IngestError.badField("cancellation_date_ms", "epoch milliseconds \(value) outside 1900–2200")
            }
            if value < Timestamp.earliestLogEpochMs {
                let advice = "Apple's dates are milliseconds: keep the body as Apple sent it"
                throw IngestError.badField("cancellation_date_ms", epochSecondsReason(value, then: advice))
            }
            ms = value
        } else if let text = try o.text("cancellation_date"), !text.isEmpty {
            guard let parsed = Timestamp.parseMs(text) else {
                throw IngestError.badField("cancellation_date", "not a date: \"\(text.prefix(60))\"")
            }
            ms = parsed
        } else {
            ms = nil
        }
        guard let ms else { return }
        let line = try o.id("web_order_line_item_id")
        let targets = response.items.indices.filter {
            line == nil ? response.items.count == 1 : response.items[$0].webOrderLineItemId == line
        }
        if targets.isEmpty {
            let named = line.map { "web_order_line_item_id \($0)" } ?? "no web_order_line_item_id"
            response.notes.append("cancellation_date: no listed purchase to apply it to (\(named))")
        }
        for i in targets where response.items[i].cancellationDateMs == nil { response.items[i].cancellationDateMs = ms }
    }
}

/// A record with fields added or replaced, keeping all of its own (`kept` nil) or only those named:
/// parts of a V1 body read as a verifyReceipt body.
private struct AmendedRecord: RecordObject {
    let base: (any RecordObject)?
    let kept: [String]?
    let amendments: [String: FieldValue]

    func field(_ key: String) -> FieldValue? {
        if let value = amendments[key] { return value }
        guard kept?.contains(key) ?? true else { return nil }
        return base?.field(key)
    }

    var fieldNames: [String] {
        let own = (base?.fieldNames ?? []).filter { kept?.contains($0) ?? true }
        return own + amendments.keys.filter { !own.contains($0) }.sorted()
    }
}
