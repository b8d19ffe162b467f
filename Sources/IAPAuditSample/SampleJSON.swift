import IAPAuditModel

/// A JSON value written by hand, keys in the order given, so sample files are byte-stable.
///
/// `number` carries digits verbatim: ids above 2^53 are written as JSON numbers without passing
/// through `Double`.
indirect enum SampleJSON {
    case string(String)
    case int(Int64)
    /// Digits written as they are, e.g. `9223372036854775001`.
    case number(String)
    case bool(Bool)
    case null
    case array([SampleJSON])
    case object([(String, SampleJSON)])

    /// `string(text)`, or `null` when `text` is nil.
    static func text(_ text: String?) -> SampleJSON {
        text.map { .string($0) } ?? .null
    }

    /// `int(value)`, or `null` when `value` is nil.
    static func integer(_ value: Int?) -> SampleJSON {
        value.map { .int(Int64($0)) } ?? .null
    }

    /// Compact JSON text (no spaces), as one line.
    var rendered: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .string(let s): JSONString.append(s, to: &out)
        case .int(let v): out += String(v)
        case .number(let digits): out += digits
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }
}

/// Builds a JSON object member by member, leaving out optional members that are absent.
struct SampleObject {
    private(set) var members: [(String, SampleJSON)] = []

    mutating func add(_ key: String, _ value: SampleJSON) {
        members.append((key, value))
    }

    /// Adds the member only when `value` is not nil.
    mutating func add(_ key: String, ifPresent value: SampleJSON?) {
        if let value { members.append((key, value)) }
    }

    var json: SampleJSON { .object(members) }
}
