import Foundation
import IAPAuditModel

/// A record the readers read field by field: a JSON object (`JSONRef`, from the strict tape) or a
/// CSV row (`CSVRow`). Every reader of input reads its fields through the vocabulary below (`text`,
/// `id`, `integer`, `bool`, `timestamp`, `date`, `object`, `array`…); the fast JSON Lines readers'
/// `TapeView` carries the same names and returns the same values where it is sure.
///
/// Each reads the field named `key` and names it `path.key` in errors (`key` when `path` is empty):
/// an absent field and a JSON null read as nil. Errors are `IngestError.badField(name, why)`
/// (`field 'receipt.in_app[0].quantity': expected an integer, found "x"`) or, for a required
/// field, `IngestError.missingField(name)`.
protocol RecordObject {
    /// The field named `key`; nil when absent (a JSON null is `.null`).
    func field(_ key: String) -> FieldValue?
    /// Whether the record has a field named `key`, null or not.
    func has(_ key: String) -> Bool
    /// The names of the record's fields (a JSON object's in document order).
    var fieldNames: [String] { get }
}

/// Why epoch milliseconds `ms` (below `Timestamp.earliestLogEpochMs`, 1973) are refused: both readings,
/// as milliseconds and as the epoch seconds they probably are, then what to do (`then`).
func epochSecondsReason(_ ms: Int64, then advice: String) -> String {
    let asSeconds = (0..<Timestamp.validRange.upperBound / 1000).contains(ms) ? " (\(Timestamp.iso(ms * 1000)) if so)" : ""
    return "epoch milliseconds \(ms) would be \(Timestamp.iso(ms)): epoch seconds?\(asSeconds); \(advice)"
}

/// `path.key`, or `key` when `path` is empty: a field's name in error messages.
func fieldName(_ key: String, in path: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

extension RecordObject {
    func has(_ key: String) -> Bool { field(key) != nil }

    /// Whether the field named `key` is present and not null.
    func hasValue(_ key: String) -> Bool {
        guard let value = field(key) else { return false }
        return !value.isNull
    }

    // MARK: Scalars

    /// The field's text when it is a JSON string (a CSV field always is), as it is; nil when absent or
    /// of another type. Never throws: for telling what a record is (`notificationType` as a string).
    func string(_ key: String) -> String? {
        guard case .string(let text)? = field(key) else { return nil }
        return text
    }

    /// Exact text of a scalar: a string as it is, a whole number's digits as written; nil when absent
    /// or null. Enum values stay raw, so values Apple adds later still read.
    /// - Throws: `IngestError.badField` for an array, an object, a boolean, a number with a fraction
    ///   or an exponent, a control character or text over 4,096 bytes (`FieldValue.text`).
    func text(_ key: String, path: String = "") throws -> String? {
        try field(key)?.text(named: fieldName(key, in: path))
    }

    /// An id: exact text, or a whole number with every digit (semantics.md rule 1); nil when absent, null
    /// or empty.
    /// - Throws: what `text` throws, and `IngestError.badField` for an id a spreadsheet rewrote in
    ///   scientific notation or with white space at its start or end (`FieldValue.id`).
    func id(_ key: String, path: String = "") throws -> String? {
        try field(key)?.id(named: fieldName(key, in: path))
    }

    /// A required id (`id`).
    /// - Throws: `IngestError.missingField` when absent, null or empty; what `id` throws.
    func requiredId(_ key: String, path: String = "") throws -> String {
        guard let value = try id(key, path: path) else { throw IngestError.missingField(fieldName(key, in: path)) }
        return value
    }

    /// A whole number sent as a number or as numeric text; nil when absent, null or blank. With
    /// `allowFraction` (Xcode's fractional milliseconds) a fraction is truncated to the whole part.
    /// - Throws: `IngestError.badField` for anything else (`FieldValue.integer`).
    func integer(_ key: String, path: String = "", allowFraction: Bool = false) throws -> Int64? {
        try field(key)?.integer(named: fieldName(key, in: path), allowFraction: allowFraction)
    }

    /// An optional integer that must be at least 1 (quantities).
    /// - Throws: what `integer` throws, and `IngestError.badField` for a value below 1.
    func positive(_ key: String, path: String = "") throws -> Int64? {
        guard let value = try integer(key, path: path) else { return nil }
        if value < 1 { throw IngestError.badField(fieldName(key, in: path), "must be at least 1, found \(value)") }
        return value
    }

    /// An optional integer that must not be negative (durations).
    /// - Throws: what `integer` throws, and `IngestError.badField` for a negative value.
    func nonNegative(_ key: String, path: String = "") throws -> Int64? {
        guard let value = try integer(key, path: path) else { return nil }
        if value < 0 { throw IngestError.badField(fieldName(key, in: path), "must not be negative, found \(value)") }
        return value
    }

    /// A boolean: `true`/`false`, or the strings `"true"`, `"false"`, `"1"`, `"0"` (semantics.md rule 5);
    /// nil when absent, null or `""`.
    /// - Throws: `IngestError.badField` for any other value, a number included (`FieldValue.bool`).
    func bool(_ key: String, path: String = "") throws -> Bool? {
        try field(key)?.bool(named: fieldName(key, in: path))
    }

    /// `environment` (or an AppTransaction's `receiptType`) in Apple's spelling (`Production`,
    /// `Sandbox`, `Xcode`, `LocalTesting`; `Environment.normalized`); unknown values kept raw; nil when
    /// absent, null or empty.
    /// - Throws: what `text` throws.
    func environment(_ key: String = "environment", path: String = "") throws -> String? {
        try text(key, path: path).flatMap { $0.isEmpty ? nil : Environment.normalized($0) }
    }

    // MARK: Instants (milliseconds since 1970 UTC)

    /// An instant in milliseconds since 1970 UTC: epoch milliseconds as a number (a fraction
    /// truncated), or ISO 8601 / Apple's text dates (`Timestamp.parseMs`); nil when absent, null or `""`.
    /// - Throws: `IngestError.badField` for a number outside 1900–2200 or text that is no timestamp.
    func timestamp(_ key: String, path: String = "") throws -> Int64? {
        let value = field(key)
        if case .number(let number)? = value {
            // A number past ±2^53 is out of 1900–2200 too: said as a date, the field's meaning.
            guard let ms = (try? value?.integer(named: fieldName(key, in: path), allowFraction: true)) ?? nil,
                Timestamp.validRange.contains(ms)
            else {
                throw IngestError.badField(fieldName(key, in: path), "epoch milliseconds \(number) outside 1900–2200")
            }
            return ms
        }
        guard let raw = try value?.text(named: fieldName(key, in: path)), !raw.isEmpty else { return nil }
        guard let ms = Timestamp.parseMs(raw) else {
            throw IngestError.badField(
                fieldName(key, in: path), "not a timestamp: \"\(raw.prefix(60))\" (expected ISO 8601 or epoch milliseconds, 1900–2200)")
        }
        return ms
    }

    /// A log's required timestamp (`ts`, `received_at`) in milliseconds since 1970 UTC: as `timestamp`,
    /// and epoch milliseconds below `Timestamp.earliestLogEpochMs` are refused as epoch seconds.
    /// - Throws: `IngestError.missingField` when absent, null or `""`; `IngestError.badField` for what
    ///   `timestamp` refuses and for epoch seconds.
    func logTimestamp(_ key: String, path: String = "") throws -> Int64 {
        guard let ms = try timestamp(key, path: path) else { throw IngestError.missingField(fieldName(key, in: path)) }
        if ms < Timestamp.earliestLogEpochMs, isEpochNumber(field(key)) {
            throw IngestError.badField(fieldName(key, in: path), epochSecondsReason(ms, then: "give milliseconds or ISO 8601"))
        }
        return ms
    }

    /// A JSON number, or text of digits (an optional minus): epoch milliseconds, not ISO 8601.
    private func isEpochNumber(_ value: FieldValue?) -> Bool {
        switch value {
        case .number?: return true
        case .string(let text)?: return Int64(text.trimmingCharacters(in: .whitespaces)) != nil
        default: return false
        }
    }

    /// A date of Apple's JWS-era payloads (JWS, App Store Server API, Notifications V2): milliseconds
    /// since 1970 UTC as a number or numeric text, a fraction truncated (Xcode writes
    /// `1697679936049.7297`); nil when absent or null.
    /// - Throws: `IngestError.badField` for text that is no number, an instant outside
    ///   `Timestamp.validRange` (1900–2200), or one before `Timestamp.earliestLogEpochMs` (1973): epoch
    ///   seconds (`signedDate: 1790845200`), named with both readings, never read as 1970.
    func date(_ key: String, path: String = "") throws -> Int64? {
        guard let ms = try integer(key, path: path, allowFraction: true) else { return nil }
        guard Timestamp.validRange.contains(ms) else {
            throw IngestError.badField(fieldName(key, in: path), "epoch milliseconds \(ms) outside 1900–2200")
        }
        if ms < Timestamp.earliestLogEpochMs {
            throw IngestError.badField(
                fieldName(key, in: path), epochSecondsReason(ms, then: "Apple's dates are milliseconds: keep the payload as Apple sent it"))
        }
        return ms
    }

    // MARK: Containers

    /// An object field; nil when absent or null.
    /// - Throws: `IngestError.badField` when present but not an object.
    func object(_ key: String, path: String = "") throws -> (any RecordObject)? {
        switch field(key) {
        case nil, .null?: return nil
        case .object(let object)?: return object
        case let other?: throw IngestError.badField(fieldName(key, in: path), "expected an object, found \(other.typeName)")
        }
    }

    /// An array field's elements; nil when absent or null.
    /// - Throws: `IngestError.badField` when present but not an array.
    func array(_ key: String, path: String = "") throws -> [FieldValue]? {
        switch field(key) {
        case nil, .null?: return nil
        case .array(let array)?: return array
        case let other?: throw IngestError.badField(fieldName(key, in: path), "expected an array, found \(other.typeName)")
        }
    }

    /// Ids as an array (a single scalar counts as one); in CSV a `;`-separated text. Text holding a
    /// comma or starting with `[` (a JSON array or a comma list written into one CSV field) is
    /// refused: read as one id it would match nothing and make false dropped orders. Nil when absent
    /// or null; blank text is an empty list.
    /// - Throws: `IngestError.badField` for such text, an empty or null id, or what `id` throws.
    func ids(_ key: String, path: String = "") throws -> [String]? {
        let name = fieldName(key, in: path)
        let value = field(key)
        guard case .string(let s)? = value else { return try value?.idArray(named: name) }
        if s.trimmingCharacters(in: .whitespaces).isEmpty { return [] }
        if s.contains(",") || s.trimmingCharacters(in: .whitespaces).hasPrefix("[") {
            throw IngestError.badField(
                name, "\"\(s.prefix(60))\" is not a list of ids separated by ';' (write 1000001;1000002, not a JSON array or commas)")
        }
        return try s.split(separator: ";", omittingEmptySubsequences: false).map {
            guard let id = try FieldValue.string($0.trimmingCharacters(in: .whitespaces)).id(named: name) else {
                throw IngestError.badField(name, "holds an empty id")
            }
            return id
        }
    }
}
