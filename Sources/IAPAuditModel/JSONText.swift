import Foundation

/// The JSON of `run --json`, `close --json` and `trace --format json`: the text `JSONSerialization` writes with `[.sortedKeys, .withoutEscapingSlashes]`, byte for
/// byte but for DEL, C1, line separator and bidi controls, escaped (`JSONString`) (JSONTextTests compares them), written directly: Foundation's writer was most of the 0.5 s of CPU a run's
/// `--json` summary took at 1M transactions (46,000 finding ids in `changes`); 0.16 s with this and the changes read
/// by index.
package enum JSONText {
    /// `object` as JSON: strings, `Int`, `Int64`, `Int32`, `Bool`, `NSNull`, arrays and string-keyed dictionaries
    /// of them (keys in Foundation's order). Anything else, through Foundation.
    package static func encode(_ object: [String: Any]) -> String {
        var out = ""
        guard write(object, to: &out) else {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return JSONString.unprintableEscaped(String(decoding: data, as: UTF8.self))
        }
        return out
    }

    /// Appends `value`; false when it holds a value of another type (`out` is then partly written).
    private static func write(_ value: Any, to out: inout String) -> Bool {
        switch value {
        case let text as String: JSONString.append(text, to: &out)
        case let flag as Bool: out += flag ? "true" : "false"
        case let n as Int: out += String(n)
        case let n as Int64: out += String(n)
        case let n as Int32: out += String(n)
        case is NSNull: out += "null"
        case let array as [Any]:
            out += "["
            for (i, element) in array.enumerated() {
                if i > 0 { out += "," }
                guard write(element, to: &out) else { return false }
            }
            out += "]"
        case let object as [String: Any]:
            out += "{"
            for (i, key) in object.keys.sorted(by: precedes).enumerated() {
                if i > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                guard write(object[key]!, to: &out) else { return false }
            }
            out += "}"
        default: return false
        }
        return true
    }

    /// Foundation's order of keys (swift-corelibs-foundation's JSONSerialization: numeric, case-insensitive,
    /// forced ordering in the system locale), so that the bytes are its bytes.
    private static func precedes(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex, locale: NSLocale.system)
            == .orderedAscending
    }
}
