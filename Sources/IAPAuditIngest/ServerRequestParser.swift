import IAPAuditModel

/// Turns one server-log record (a JSON object, or a CSV row as text fields) into a `ServerRequest`.
enum ServerRequestParser {
    /// Throws `IngestError` naming the field when a required field is missing or malformed.
    static func parse(_ o: any RecordObject, at location: SourceLocation) throws -> ServerRequest {
        let eventText = try JSONField.text(o.field("event"), field: "event") ?? "verify"
        guard let event = ServerEvent(rawValue: eventText.isEmpty ? "verify" : eventText) else {
            throw IngestError.badField("event", "unknown event \"\(eventText)\" (expected verify or revoke)")
        }
        guard let ids = try RecordFields.ids(o, "transaction_ids") else { throw IngestError.missingField("transaction_ids") }
        if ids.isEmpty { throw IngestError.badField("transaction_ids", "is empty: the request carries no transaction") }
        let granted = try JSONField.bool(o.field("granted"), field: "granted")
        if granted == nil && event == .verify { throw IngestError.missingField("granted") }
        let status = try JSONField.integer(o.field("verify_status"), field: "verify_status")
        return ServerRequest(
            location: location,
            tsMs: try RecordFields.timestamp(o, "ts"),
            requestId: try RecordFields.requiredText(o, "request_id"),
            event: event,
            userId: try JSONField.id(o.field("user_id"), field: "user_id"),
            deviceId: try JSONField.id(o.field("device_id"), field: "device_id"),
            transactionIds: ids,
            creditedTransactionIds: try RecordFields.ids(o, "credited_transaction_ids"),
            restore: try JSONField.bool(o.field("restore"), field: "restore") ?? false,
            receiptSha256: try JSONField.id(o.field("receipt_sha256"), field: "receipt_sha256"),
            verifyStatus: status.map { Int($0) },
            environment: try JSONField.text(o.field("environment"), field: "environment").flatMap { $0.isEmpty ? nil : $0 },
            granted: granted ?? false,
            latencyMs: try RecordFields.nonNegative(o, "latency_ms"))
    }
}
