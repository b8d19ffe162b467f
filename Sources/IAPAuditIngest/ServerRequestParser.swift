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
        let credited = try o.ids("credited_transaction_ids")
        return ServerRequest(
            location: location,
            tsMs: try o.logTimestamp("ts"),
            requestId: try o.requiredId("request_id"),
            event: event,
            userId: try o.id("user_id"),
            deviceId: try o.id("device_id"),
            transactionIds: ids,
            creditedTransactionIds: credited,
            creditedQuantities: try quantities(o, credited: credited ?? ids),
            restore: try o.bool("restore") ?? false,
            receiptSha256: try o.id("receipt_sha256"),
            verifyStatus: status.map { Int($0) },
            environment: try o.text("environment").flatMap { $0.isEmpty ? nil : $0 },
            granted: granted ?? false,
            latencyMs: try o.nonNegative("latency_ms"))
    }

    /// `credited_quantity` (semantics.md rule 20): a whole number applies to every id the record credits
    /// (`credited`); an object `{"T": n}` gives each id its own, and may name only those ids. nil when
    /// absent or null. A CSV cell holds the number form only.
    private static func quantities(_ o: any RecordObject, credited: [String]) throws -> [String: Int]? {
        let field = "credited_quantity"
        switch o.field(field) {
        case nil, .null?: return nil
        case .object(let byId)?:
            var result: [String: Int] = [:]
            for id in byId.fieldNames {
                guard let n = try byId.nonNegative(id, path: field) else { continue }
                // A typo in an id would otherwise leave a real short credit uncompared.
                guard credited.contains(where: { $0.utf8.elementsEqual(id.utf8) }) else {
                    throw IngestError.badField(
                        field, "names \(id), which this record does not credit (credited_transaction_ids, else transaction_ids)")
                }
                result[id] = Int(n)
            }
            return result
        case let other? where other.isArrayOrBool:
            throw IngestError.badField(field, "expected a whole number or an object {\"<transaction_id>\": n}, found \(other.typeName)")
        default: break
        }
        guard let n = try o.nonNegative(field) else { return nil }
        return Dictionary(credited.map { ($0, Int(n)) }, uniquingKeysWith: { a, _ in a })
    }
}
