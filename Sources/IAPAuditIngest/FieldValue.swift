import Foundation
import IAPAuditModel

/// One field of a record, whatever it was read from (a JSON tape, a Foundation object, a CSV row).
enum FieldValue {
    case null
    case bool(Bool)
    /// A JSON number exactly as written (`1000000000000000123`, `1.5`).
    case number(String)
    case string(String)
    case array([FieldValue])
    case object(any RecordObject)

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

    /// For messages: "a string", "a number"…
    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A record the parsers read field by field.
protocol RecordObject {
    /// The field named `key`; nil when absent.
    func field(_ key: String) -> FieldValue?
    var fieldNames: [String] { get }
}

/// A `JSONSerialization` object (or a CSV row of text fields) as a `RecordObject`.
struct FoundationObject: RecordObject {
    let object: [String: Any]
    init(_ object: [String: Any]) { self.object = object }
    func field(_ key: String) -> FieldValue? { FieldValue(any: object[key]) }
    var fieldNames: [String] { Array(object.keys) }
}
