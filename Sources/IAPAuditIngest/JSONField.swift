import Foundation
import IAPAuditModel

/// Whole JSON documents. Input records are read with the strict tape (`parseObject`: the root
/// `JSONRef`, whose fields the readers read through the `RecordObject` vocabulary); Foundation's
/// `JSONSerialization` only reads the `--config` file (`parseDocument`) and writes JSON text
/// (`serialize`).
package enum JSONField {
    /// Parses one JSON object with the strict tape (`JSONTape`): its root, read lazily.
    /// - Throws: `IngestError.invalidJSON` naming the line and column of a syntax error
    ///   (`trailing comma at line 4, column 1`), or when the value is not an object
    ///   (`expected a JSON object, found an array`).
    static func parseObject(_ bytes: [UInt8], limits: InputLimits = InputLimits()) throws -> JSONRef {
        try object(JSONTape(bytes, limits: limits).root)
    }

    /// Parses one JSON Lines line: as `parseObject`, but a line that is valid JSON of another type is
    /// told so (`a JSON array, not an object: each line must be one JSON object`).
    /// - Throws: `IngestError.invalidJSON` for a syntax error, `IngestError.other` for another type.
    /// `limits`: the nesting and keys an object may have (`depth`, `fields`).
    static func parseLine(_ bytes: [UInt8], limits: InputLimits = InputLimits()) throws -> JSONRef {
        let root = try JSONTape(bytes, limits: limits).root
        guard root.kind == .object else {
            let type = root.typeName.split(separator: " ").last.map(String.init) ?? root.typeName
            throw IngestError.other("a JSON \(type), not an object: each line must be one JSON object")
        }
        return root
    }

    /// `parseObject` over `data`'s bytes.
    static func parseObject(_ data: Data) throws -> JSONRef { try parseObject([UInt8](data)) }

    /// `root` when it is an object.
    /// - Throws: `IngestError.invalidJSON("expected a JSON object, found <type>")` otherwise.
    static func object(_ root: JSONRef) throws -> JSONRef {
        guard root.kind == .object else { throw IngestError.invalidJSON("expected a JSON object, found \(root.typeName)") }
        return root
    }

    /// A whole small document that is not an input record (the `--config` file) as Foundation
    /// objects: checked by the strict tape (its errors, the same rules as input), then read by
    /// `JSONSerialization`.
    /// - Throws: `IngestError.invalidJSON` as `parseObject` does, or with Foundation's message.
    package static func parseDocument(_ data: Data) throws -> [String: Any] {
        _ = try parseObject(data)
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw IngestError.invalidJSON(describe(error))
        }
        guard let object = value as? [String: Any] else { throw IngestError.invalidJSON("expected a JSON object") }
        return object
    }

    private static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let debug = ns.userInfo[NSDebugDescriptionErrorKey] as? String { return debug }
        return ns.localizedDescription
    }

    /// Whether `text` starts or ends with white space (any Unicode white space, a no-break space too).
    package static func hasSpaceAtAnEnd(_ text: String) -> Bool {
        (text.unicodeScalars.first?.properties.isWhitespace ?? false) || (text.unicodeScalars.last?.properties.isWhitespace ?? false)
    }

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
