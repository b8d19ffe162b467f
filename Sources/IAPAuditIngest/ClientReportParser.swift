import IAPAuditModel

/// Turns one client-report record (a JSON object, or a CSV row as text fields) into a `ClientReport`.
enum ClientReportParser {
    /// Throws `IngestError` naming the field when a required field is missing or malformed.
    static func parse(_ o: any RecordObject, at location: SourceLocation) throws -> ClientReport {
        guard let stateText = try o.text("state") else { throw IngestError.missingField("state") }
        guard let state = ClientState(rawValue: stateText) else {
            throw IngestError.badField(
                "state", "unknown state \"\(stateText)\" (expected purchasing, purchased, failed, deferred or restored)")
        }
        let transactionId = try o.id("transaction_id")
        if transactionId == nil && (state == .purchased || state == .restored) {
            throw IngestError.missingField("transaction_id")
        }
        return ClientReport(
            location: location,
            tsMs: try o.logTimestamp("ts"),
            userId: try o.id("user_id"),
            deviceId: try o.id("device_id"),
            transactionId: transactionId,
            originalTransactionId: try o.id("original_transaction_id"),
            productId: try o.id("product_id"),
            state: state,
            errorCode: try o.integer("error_code").map { Int($0) },
            quantity: try o.positive("quantity").map { Int($0) })
    }
}
