import IAPAuditModel

/// Turns one server-log record (a JSON object, or a CSV row as text fields) into a `ServerRequest`.
enum ServerRequestParser {
    /// Throws `IngestError` naming the field when a required field is missing or malformed.
    static func parse(_ o: any RecordObject, at location: SourceLocation) throws -> ServerRequest {
        let eventText = try o.text("event") ?? "verify"
        guard let event = ServerEvent(rawValue: eventText.isEmpty ? "verify" : eventText) else {
            throw IngestError.badField("event", "unknown event \"\(eventText)\" (expected verify or revoke)")
        }
        guard let ids = try o.ids("transaction_ids") else { throw IngestError.missingField("transaction_ids") }
        if ids.isEmpty { throw IngestError.badField("transaction_ids", "is empty: the request carries no transaction") }
        let granted = try o.bool("granted")
        if granted == nil && event == .verify { throw IngestError.missingField("granted") }
        let status = try o.integer("verify_status")
        return ServerRequest(
            location: location,
            tsMs: try o.logTimestamp("ts"),
            requestId: try o.requiredId("request_id"),
            event: event,
            userId: try o.id("user_id"),
            deviceId: try o.id("device_id"),
            transactionIds: ids,
            creditedTransactionIds: try o.ids("credited_transaction_ids"),
            restore: try o.bool("restore") ?? false,
            receiptSha256: try o.id("receipt_sha256"),
            verifyStatus: status.map { Int($0) },
            environment: try o.text("environment").flatMap { $0.isEmpty ? nil : $0 },
            granted: granted ?? false,
            latencyMs: try o.nonNegative("latency_ms"))
    }
}
