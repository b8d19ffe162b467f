import Foundation
import IAPAuditModel

/// Turns one client-report record (a JSON object, or a CSV row as text fields) into a `ClientReport`.
enum ClientReportParser {
    /// Throws `IngestError` naming the field when a required field is missing or malformed.
    static func parse(_ o: any RecordObject, at location: SourceLocation) throws -> ClientReport {
        guard let stateText = try JSONField.text(o.field("state"), field: "state") else { throw IngestError.missingField("state") }
        guard let state = ClientState(rawValue: stateText) else {
            throw IngestError.badField(
                "state", "unknown state \"\(stateText)\" (expected purchasing, purchased, failed, deferred or restored)")
        }
        let transactionId = try JSONField.id(o.field("transaction_id"), field: "transaction_id")
        if transactionId == nil && (state == .purchased || state == .restored) {
            throw IngestError.missingField("transaction_id")
        }
        return ClientReport(
            location: location,
            tsMs: try RecordFields.timestamp(o, "ts"),
            userId: try JSONField.id(o.field("user_id"), field: "user_id"),
            deviceId: try JSONField.id(o.field("device_id"), field: "device_id"),
            transactionId: transactionId,
            originalTransactionId: try JSONField.id(o.field("original_transaction_id"), field: "original_transaction_id"),
            productId: try JSONField.id(o.field("product_id"), field: "product_id"),
            state: state,
            errorCode: try JSONField.integer(o.field("error_code"), field: "error_code").map { Int($0) },
            quantity: try RecordFields.positive(o, "quantity").map { Int($0) })
    }
}

/// Field helpers shared by the record parsers.
enum RecordFields {
    /// A required timestamp: ISO 8601 text or epoch milliseconds.
    static func timestamp(_ o: [String: Any], _ field: String) throws -> Int64 { try timestamp(FoundationObject(o), field) }

    static func requiredText(_ o: [String: Any], _ field: String) throws -> String { try requiredText(FoundationObject(o), field) }

    /// A log's required timestamp (`ts`, `received_at`): as `optionalTimestamp`, and epoch milliseconds
    /// below `Timestamp.earliestLogEpochMs` are rejected as epoch seconds.
    static func timestamp(_ o: any RecordObject, _ field: String) throws -> Int64 {
        guard let ms = try optionalTimestamp(o, field) else { throw IngestError.missingField(field) }
        if ms < Timestamp.earliestLogEpochMs, isEpochNumber(o.field(field)) {
            let asSeconds = (0..<Timestamp.validRange.upperBound / 1000).contains(ms) ? " (\(Timestamp.iso(ms * 1000)) if so)" : ""
            throw IngestError.badField(
                field, "epoch milliseconds \(ms) would be \(Timestamp.iso(ms)): epoch seconds?\(asSeconds); give milliseconds or ISO 8601")
        }
        return ms
    }

    /// A JSON number, or text of digits (an optional minus): epoch milliseconds, not ISO 8601.
    private static func isEpochNumber(_ value: FieldValue?) -> Bool {
        switch value {
        case .number?: return true
        case .string(let text)?: return Int64(text.trimmingCharacters(in: .whitespaces)) != nil
        default: return false
        }
    }

    static func optionalTimestamp(_ o: any RecordObject, _ field: String) throws -> Int64? {
        let value = o.field(field)
        if case .number(let number)? = value {
            guard let ms = try JSONField.integer(value, field: field, allowFraction: true), Timestamp.validRange.contains(ms) else {
                throw IngestError.badField(field, "epoch milliseconds \(number) outside 1900–2200")
            }
            return ms
        }
        guard let raw = try JSONField.text(value, field: field), !raw.isEmpty else { return nil }
        guard let ms = Timestamp.parseMs(raw) else {
            throw IngestError.badField(field, "not a timestamp: \"\(raw.prefix(60))\" (expected ISO 8601 or epoch milliseconds, 1900–2200)")
        }
        return ms
    }

    /// An optional integer that must be ≥ 1 (quantities).
    static func positive(_ o: any RecordObject, _ field: String) throws -> Int64? {
        guard let value = try JSONField.integer(o.field(field), field: field) else { return nil }
        if value < 1 { throw IngestError.badField(field, "must be at least 1, found \(value)") }
        return value
    }

    /// An optional integer that must be ≥ 0 (durations).
    static func nonNegative(_ o: any RecordObject, _ field: String) throws -> Int64? {
        guard let value = try JSONField.integer(o.field(field), field: field) else { return nil }
        if value < 0 { throw IngestError.badField(field, "must not be negative, found \(value)") }
        return value
    }

    static func requiredText(_ o: any RecordObject, _ field: String) throws -> String {
        guard let value = try JSONField.id(o.field(field), field: field) else {
            throw IngestError.missingField(field)
        }
        return value
    }

    /// Ids as an array; in CSV a `;`-separated text. Text holding a comma or starting with `[` (a JSON
    /// array or a comma list written into one CSV field) is refused: read as one id it would match
    /// nothing and make false dropped orders.
    static func ids(_ o: any RecordObject, _ field: String) throws -> [String]? {
        let value = o.field(field)
        if case .string(let s)? = value {
            if s.trimmingCharacters(in: .whitespaces).isEmpty { return [] }
            if s.contains(",") || s.trimmingCharacters(in: .whitespaces).hasPrefix("[") {
                throw IngestError.badField(
                    field, "\"\(s.prefix(60))\" is not a list of ids separated by ';' (write 1000001;1000002, not a JSON array or commas)")
            }
            return try s.split(separator: ";", omittingEmptySubsequences: false).map {
                guard let id = try JSONField.id($0.trimmingCharacters(in: .whitespaces), field: field) else {
                    throw IngestError.badField(field, "holds an empty id")
                }
                return id
            }
        }
        return try JSONField.textArray(value, field: field)
    }
}
