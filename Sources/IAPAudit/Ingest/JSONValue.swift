import Foundation

/// Reading fields of `JSONSerialization` objects the way Apple's payloads need:
/// ids as exact text (a number above 2^53 keeps its digits), `"true"/"false"` as booleans,
/// numbers sent as strings.
enum JSONField {
    /// Parses one JSON document. Throws `IngestError.invalidJSON` with Foundation's message.
    static func parseObject(_ data: Data) throws -> [String: Any] {
        try data.withUnsafeBytes { try StrictJSON.validate($0.bindMemory(to: UInt8.self)) }
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
    static func text(_ value: Any?, field: String) throws -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let s as String:
            if s.utf8.count > maxTextLength { throw IngestError.badField(field, "longer than \(maxTextLength) bytes") }
            if s.utf8.contains(where: { $0 < 0x20 }) { throw IngestError.badField(field, "contains a control character") }
            return s
        case let n as NSNumber:
            if isBool(n) { throw IngestError.badField(field, "expected text or a number, found a boolean") }
            let digits = n.description
            guard isWholeNumber(digits) else {
                throw IngestError.badField(field, "expected text or a whole number, found \(digits)")
            }
            return digits
        default:
            throw IngestError.badField(field, "expected text or a number, found \(typeName(value!))")
        }
    }

    private static func isWholeNumber(_ s: String) -> Bool {
        let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// An integer sent as a number or as a numeric string. Fractions are refused unless
    /// `allowFraction` (Xcode's fractional milliseconds), where the whole part is kept.
    static func integer(_ value: Any?, field: String, allowFraction: Bool = false) throws -> Int64? {
        guard let raw = try scalarText(value, field: field) else { return nil }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        if let v = Int64(trimmed) { return v }
        if allowFraction, let d = Double(trimmed), d.isFinite, abs(d) < 9e18, trimmed.contains(".") { return Int64(d.rounded(.down)) }
        throw IngestError.badField(field, "expected an integer, found \"\(raw.prefix(40))\"")
    }

    /// Like `text` but keeps a number's own rendering (for integer parsing).
    private static func scalarText(_ value: Any?, field: String) throws -> String? {
        if let n = value as? NSNumber, !isBool(n) { return n.description }
        return try text(value, field: field)
    }

    /// An id: exact text, or a whole JSON number; never empty. Text such as `2.00000041234568E+15`
    /// (an id a spreadsheet rewrote in scientific notation, its digits lost) is refused.
    static func id(_ value: Any?, field: String) throws -> String? {
        guard let text = try text(value, field: field) else { return nil }
        if looksLikeScientificNotation(text) {
            throw IngestError.badField(field, "\"\(text)\" looks like an id a spreadsheet rewrote in scientific notation (digits lost)")
        }
        return text.isEmpty ? nil : text
    }

    private static func looksLikeScientificNotation(_ text: String) -> Bool {
        let parts = text.uppercased().split(separator: "E", omittingEmptySubsequences: false)
        guard parts.count == 2, let mantissa = Double(parts[0]), mantissa.isFinite, parts[0].first?.isNumber == true,
            Int(parts[1].drop { $0 == "+" }) != nil
        else { return false }
        return true
    }

    /// A boolean from `true/false` or the strings `"true"/"false"/"1"/"0"` (SEMANTICS rule 5).
    static func bool(_ value: Any?, field: String) throws -> Bool? {
        switch value {
        case nil, is NSNull: return nil
        case let n as NSNumber:
            if isBool(n) { return n.boolValue }
        case let s as String:
            switch s {
            case "true", "1": return true
            case "false", "0": return false
            case "": return nil
            default: break
            }
        default: break
        }
        throw IngestError.badField(field, "expected a boolean, found \(String(describing: value!))")
    }

    /// An array of exact-text ids; a single scalar counts as a one-element array.
    static func textArray(_ value: Any?, field: String) throws -> [String]? {
        switch value {
        case nil, is NSNull: return nil
        case let array as [Any]:
            return try array.map {
                guard let id = try id($0, field: field) else { throw IngestError.badField(field, "holds an empty or null id") }
                return id
            }
        default:
            return try text(value, field: field).map { [$0] }
        }
    }

    /// Serializes an object back to compact JSON with sorted keys (for the raw store).
    static func serialize(_ object: Any) -> String {
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
