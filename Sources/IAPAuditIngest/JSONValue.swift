import Foundation
import IAPAuditModel

/// Reading fields of `JSONSerialization` objects the way Apple's payloads need:
/// ids as exact text (a number above 2^53 keeps its digits), `"true"/"false"` as booleans,
/// numbers sent as strings.
package enum JSONField {
    /// Parses one JSON document. Throws `IngestError.invalidJSON` with Foundation's message.
    package static func parseObject(_ data: Data) throws -> [String: Any] {
        _ = try JSONTape([UInt8](data))
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw IngestError.invalidJSON(describe(error))
        }
        guard let object = value as? [String: Any] else {
            throw IngestError.invalidJSON("expected a JSON object, found \(typeName(value))")
        }
        return object
    }

    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let debug = ns.userInfo[NSDebugDescriptionErrorKey] as? String { return debug }
        return ns.localizedDescription
    }

    static func typeName(_ value: Any) -> String {
        switch value {
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case is String: return "a string"
        case is NSNull: return "null"
        case let n as NSNumber: return isBool(n) ? "a boolean" : "a number"
        default: return "\(type(of: value))"
        }
    }

    static func isBool(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c" || type(of: n) == type(of: NSNumber(value: true))
    }

    /// Longest text kept from a field: longer values are corrupt data, not ids.
    static let maxTextLength = 4096

    /// Exact text of a scalar: strings as they are, integers with every digit.
    /// Returns nil for null/absent; throws for arrays, objects, booleans, fractional or exponent
    /// numbers, control characters (a NUL would cut the id short) and text over 4,096 characters.
    static func text(_ value: FieldValue?, field: @autoclosure () -> String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?:
            if s.utf8.count > maxTextLength { throw IngestError.badField(field(), "longer than \(maxTextLength) bytes") }
            if s.utf8.contains(where: { $0 < 0x20 }) { throw IngestError.badField(field(), "contains a control character") }
            return s
        case .number(let digits)?:
            guard isWholeNumber(digits) else {
                throw IngestError.badField(field(), "expected text or a whole number, found \(digits)")
            }
            return digits
        case .bool?: throw IngestError.badField(field(), "expected text or a number, found a boolean")
        case let other?: throw IngestError.badField(field(), "expected text or a number, found \(other.typeName)")
        }
    }

    static func text(_ value: Any?, field: String) throws -> String? { try text(FieldValue(any: value), field: field) }

    private static func isWholeNumber(_ s: String) -> Bool {
        let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// An integer sent as a number or as a numeric string. Fractions are refused unless
    /// `allowFraction` (Xcode's fractional milliseconds), where the whole part is kept.
    static func integer(_ value: FieldValue?, field: @autoclosure () -> String, allowFraction: Bool = false) throws -> Int64? {
        guard let raw = try scalarText(value, field: field()) else { return nil }
        if let v = Int64(raw) { return v }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        if let v = Int64(trimmed) { return v }
        if allowFraction, let d = Double(trimmed), d.isFinite, abs(d) < 9e18, trimmed.contains(".") { return Int64(d.rounded(.down)) }
        throw IngestError.badField(field(), "expected an integer, found \"\(raw.prefix(40))\"")
    }

    static func integer(_ value: Any?, field: String, allowFraction: Bool = false) throws -> Int64? {
        try integer(FieldValue(any: value), field: field, allowFraction: allowFraction)
    }

    /// Like `text` but keeps a number's own rendering (for integer parsing).
    private static func scalarText(_ value: FieldValue?, field: @autoclosure () -> String) throws -> String? {
        if case .number(let digits)? = value { return digits }
        return try text(value, field: field())
    }

    /// An id: exact text, or a whole JSON number; never empty. Text such as `2.00000041234568E+15`
    /// (an id a spreadsheet rewrote in scientific notation, its digits lost) is refused, and so is an
    /// id with white space at its start or end (`, 2000000400594934 ,` in a hand-made CSV): ids are
    /// exact text, so it would be another id than the one Apple and the server log carry.
    static func id(_ value: FieldValue?, field: @autoclosure () -> String) throws -> String? {
        guard let text = try text(value, field: field()) else { return nil }
        if looksLikeScientificNotation(text) {
            throw IngestError.badField(field(), "\"\(text)\" looks like an id a spreadsheet rewrote in scientific notation (digits lost)")
        }
        if hasSpaceAtAnEnd(text) {
            throw IngestError.badField(
                field(), "\"\(text.prefix(60))\" has white space at its start or end (ids are exact text: remove it)")
        }
        return text.isEmpty ? nil : text
    }

    static func id(_ value: Any?, field: String) throws -> String? { try id(FieldValue(any: value), field: field) }

    /// Whether `text` starts or ends with white space (any Unicode white space, a no-break space too).
    package static func hasSpaceAtAnEnd(_ text: String) -> Bool {
        (text.unicodeScalars.first?.properties.isWhitespace ?? false) || (text.unicodeScalars.last?.properties.isWhitespace ?? false)
    }

    private static func looksLikeScientificNotation(_ text: String) -> Bool {
        // Fast exit: plain digits (every real id) hold no exponent.
        guard let first = text.utf8.first, first >= 0x30 && first <= 0x39,
            text.utf8.contains(where: { $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "e") })
        else { return false }
        let parts = text.uppercased().split(separator: "E", omittingEmptySubsequences: false)
        guard parts.count == 2, let mantissa = Double(parts[0]), mantissa.isFinite, parts[0].first?.isNumber == true,
            Int(parts[1].drop { $0 == "+" }) != nil
        else { return false }
        return true
    }

    /// A boolean from `true/false` or the strings `"true"/"false"/"1"/"0"` (SEMANTICS rule 5).
    static func bool(_ value: FieldValue?, field: @autoclosure () -> String) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case .string(let s)?:
            switch s {
            case "true", "1": return true
            case "false", "0": return false
            case "": return nil
            default: throw IngestError.badField(field(), "expected a boolean, found \(s)")
            }
        case .number(let n)?: throw IngestError.badField(field(), "expected a boolean, found \(n)")
        case let other?: throw IngestError.badField(field(), "expected a boolean, found \(other.typeName)")
        }
    }

    static func bool(_ value: Any?, field: String) throws -> Bool? { try bool(FieldValue(any: value), field: field) }

    /// An array of exact-text ids; a single scalar counts as a one-element array.
    static func textArray(_ value: FieldValue?, field: @autoclosure () -> String) throws -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .array(let array)?:
            return try array.map {
                guard let id = try id($0, field: field()) else { throw IngestError.badField(field(), "holds an empty or null id") }
                return id
            }
        default:
            return try text(value, field: field()).map { [$0] }
        }
    }

    static func textArray(_ value: Any?, field: String) throws -> [String]? { try textArray(FieldValue(any: value), field: field) }

    /// Serializes an object back to compact JSON with sorted keys (for the raw store).
    package static func serialize(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why a record or file could not be imported; becomes a rejection reason.
enum IngestError: Error, CustomStringConvertible {
    case invalidJSON(String)
    case badField(String, String)
    case missingField(String)
    case other(String)

    var description: String {
        switch self {
        case .invalidJSON(let message): return "invalid JSON: \(message)"
        case .badField(let field, let message): return "field '\(field)': \(message)"
        case .missingField(let field): return "missing required field '\(field)'"
        case .other(let message): return message
        }
    }
}
