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

    /// Parses one JSON object with the strict tape (`JSONTape`): its root, read lazily.
    /// - Throws: `IngestError.invalidJSON` naming the line and column of a syntax error, or when the
    ///   value is not an object (`expected a JSON object, found an array`).
    static func parseObject(_ bytes: [UInt8]) throws -> JSONRef {
        let root = try JSONTape(bytes).root
        guard root.kind == .object else {
            throw IngestError.invalidJSON("expected a JSON object, found \(root.value.typeName)")
        }
        return root
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
    static var maxTextLength: Int { FieldValue.maxTextLength }

    static func text(_ value: Any?, field: String) throws -> String? { try FieldValue(any: value)?.text(named: field) }

    static func integer(_ value: Any?, field: String, allowFraction: Bool = false) throws -> Int64? {
        try FieldValue(any: value)?.integer(named: field, allowFraction: allowFraction)
    }

    static func id(_ value: Any?, field: String) throws -> String? { try FieldValue(any: value)?.id(named: field) }

    /// Whether `text` starts or ends with white space (any Unicode white space, a no-break space too).
    package static func hasSpaceAtAnEnd(_ text: String) -> Bool {
        (text.unicodeScalars.first?.properties.isWhitespace ?? false) || (text.unicodeScalars.last?.properties.isWhitespace ?? false)
    }

    static func bool(_ value: Any?, field: String) throws -> Bool? { try FieldValue(any: value)?.bool(named: field) }

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

extension FieldValue {
    /// A `JSONSerialization` value (`NSNull`, `NSNumber`, `String`, arrays, dictionaries) as a field;
    /// nil for nil.
    init?(any value: Any?) {
        switch value {
        case nil: return nil
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber: self = JSONField.isBool(n) ? .bool(n.boolValue) : .number(n.description)
        case let a as [Any]: self = .array(a.map { FieldValue(any: $0) ?? .null })
        case let o as [String: Any]: self = .object(FoundationObject(o))
        default: self = .string("\(value!)")
        }
    }
}

/// A `JSONSerialization` object as a `RecordObject`.
struct FoundationObject: RecordObject {
    let object: [String: Any]
    init(_ object: [String: Any]) { self.object = object }
    func field(_ key: String) -> FieldValue? { FieldValue(any: object[key]) }
    var fieldNames: [String] { Array(object.keys) }
}
