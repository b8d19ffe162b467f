import Foundation
import IAPAuditModel

/// One field of a record, whatever it was read from (a JSON tape, a CSV row).
///
/// The conversions below are the rules of the strict field vocabulary (`RecordObject.text`, `id`,
/// `integer`, `bool`…) for one value; a reader names the field by its key through `RecordObject`,
/// and uses these only for a value it picked itself (one of two spellings of a key, a list element).
/// `.null` reads as absent (nil) everywhere. `name` is the field's name in error messages
/// (`receipt.in_app[0].transaction_id`), built only when an error is thrown.
enum FieldValue {
    case null
    case bool(Bool)
    /// A JSON number exactly as written (`1000000000000000123`, `1.5`, `1e5`).
    case number(String)
    case string(String)
    case array([FieldValue])
    case object(any RecordObject)

    /// An array or a boolean (neither a number, a text nor an object).
    var isArrayOrBool: Bool {
        switch self {
        case .array, .bool: return true
        default: return false
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

    /// Longest text kept from a field: longer values are corrupt data, not ids.
    static let maxTextLength = 4096

    /// Exact text of a scalar: a string as it is, a whole number's digits as written (every digit of
    /// an id above 2^63 too); nil for null.
    /// - Throws: `IngestError.badField` for an array, an object, a boolean, a number with a fraction
    ///   or an exponent, a control character (a NUL would cut an id short; a C1 control, a line separator or a
    ///   bidi control too: `Unicode.Scalar.isUnprintable`, what printing escapes) or text over 4,096 bytes.
    func text(named name: @autoclosure () -> String) throws -> String? {
        switch self {
        case .null: return nil
        case .string(let s):
            if s.utf8.count > Self.maxTextLength { throw IngestError.badField(name(), "longer than \(Self.maxTextLength) bytes") }
            if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }),
                s.unicodeScalars.contains(where: \.isUnprintable)
            {
                throw IngestError.badField(name(), "contains a control character")
            }
            return s
        case .number(let digits):
            guard Self.isWholeNumber(digits) else {
                throw IngestError.badField(name(), "expected text or a whole number, found \(digits)")
            }
            return digits
        case .bool: throw IngestError.badField(name(), "expected text or a number, found a boolean")
        default: throw IngestError.badField(name(), "expected text or a number, found \(typeName)")
        }
    }

    /// Digits with an optional leading minus.
    private static func isWholeNumber(_ s: String) -> Bool {
        let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A whole number sent as a number or as numeric text (white space around text is ignored; blank
    /// text is nil). A fraction is refused unless `allowFraction` (Xcode's fractional milliseconds),
    /// where the whole part is kept.
    /// - Throws: `IngestError.badField` for anything else, or a value beyond ±2^53 (`ExactNumber`).
    func integer(named name: @autoclosure () -> String, allowFraction: Bool = false) throws -> Int64? {
        guard let value = try anyInteger(named: name(), allowFraction: allowFraction) else { return nil }
        guard ExactNumber.holds(value) else { throw IngestError.badField(name(), ExactNumber.outOfRange(value)) }
        return value
    }

    private func anyInteger(named name: @autoclosure () -> String, allowFraction: Bool) throws -> Int64? {
        let raw: String
        if case .number(let digits) = self {
            raw = digits
        } else {
            guard let text = try text(named: name()) else { return nil }
            raw = text
        }
        if let v = Int64(raw) { return v }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        if let v = Int64(trimmed) { return v }
        if allowFraction, let d = Double(trimmed), d.isFinite, abs(d) < 9e18, trimmed.contains(".") { return Int64(d.rounded(.down)) }
        throw IngestError.badField(name(), "expected an integer, found \"\(raw.prefix(40))\"")
    }

    /// An id: exact text or a whole number's digits (`text`); empty text is nil.
    /// - Throws: `IngestError.badField` for an id in floating-point form — text such as
    ///   `2000000400594084.0` or `2.00000041234568E+15` (a spreadsheet rewrote the column as numbers:
    ///   `.0` added, or digits lost to scientific notation), or a JSON number with a fraction or an
    ///   exponent (a program read the id as a float) —, for text with white space at its start or end
    ///   (`, 2000000400594934 ,` in a hand-made CSV): ids are exact text, so either would be another id
    ///   than the one Apple and the server log carry; and for what `text` throws.
    func id(named name: @autoclosure () -> String) throws -> String? {
        if case .number(let digits) = self, let form = Self.FloatForm(digits) {
            throw IngestError.badField(
                name(), "\(digits) looks like an id a program wrote as a floating-point number (\(form.damage)); write ids as text")
        }
        guard let text = try text(named: name()) else { return nil }
        if let form = Self.FloatForm(text), form.exponent || form.zeroFraction {
            throw IngestError.badField(
                name(), "\"\(text)\" looks like an id a spreadsheet rewrote as a number (\(form.damage)); export the column as text")
        }
        if JSONField.hasSpaceAtAnEnd(text) {
            throw IngestError.badField(
                name(), "\"\(text.prefix(60))\" has white space at its start or end (ids are exact text: remove it)")
        }
        return text.isEmpty ? nil : text
    }

    /// A number in floating-point form: digits with a fraction (`2000000400594084.0`, `12.5`, `12.`)
    /// and/or an exponent (`2.00000041234568E+15`, `2e15`), as a spreadsheet or a float writes an id.
    struct FloatForm {
        /// Written with an exponent (`E+15`).
        var exponent = false
        /// Its fraction is only zeros, or empty (`.0`, `.`), and it has no exponent.
        var zeroFraction = false

        /// Nil for plain digits (every real id: one look at each byte) and for anything that is not
        /// `digits [. digits] [e|E [+|-] digits]` with a point or an exponent.
        init?(_ text: String) {
            let bytes = text.utf8
            guard let first = bytes.first, first &- 0x30 < 10 else { return nil }
            var point = false
            var nonZeroFraction = false
            var previous: UInt8 = 0
            for b in bytes {
                switch b {
                case 0x30...0x39:
                    if point && !exponent && b != 0x30 { nonZeroFraction = true }
                case UInt8(ascii: "."):
                    if point || exponent { return nil }
                    point = true
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    if exponent { return nil }
                    exponent = true
                case UInt8(ascii: "+"), UInt8(ascii: "-"):
                    if previous | 0x20 != UInt8(ascii: "e") { return nil }
                default:
                    return nil
                }
                previous = b
            }
            let complete = previous &- 0x30 < 10 || (previous == UInt8(ascii: ".") && !exponent)
            guard (point || exponent) && complete else { return nil }
            zeroFraction = !exponent && !nonZeroFraction
        }

        /// What became of the id's digits, for messages.
        var damage: String {
            if exponent { return "in scientific notation, which loses digits" }
            return zeroFraction ? "'.0' added or digits lost" : "an id has no fraction"
        }
    }

    /// A boolean from `true`/`false` or the strings `"true"`, `"false"`, `"1"`, `"0"` (docs/semantics.md
    /// rule 5); `""` is nil.
    /// - Throws: `IngestError.badField` for any other value (a number included).
    func bool(named name: @autoclosure () -> String) throws -> Bool? {
        switch self {
        case .null: return nil
        case .bool(let b): return b
        case .string(let s):
            switch s {
            case "true", "1": return true
            case "false", "0": return false
            case "": return nil
            default: throw IngestError.badField(name(), "expected a boolean, found \"\(s.prefix(40))\"")
            }
        case .number(let n): throw IngestError.badField(name(), "expected a boolean, found \(n)")
        default: throw IngestError.badField(name(), "expected a boolean, found \(typeName)")
        }
    }

    /// An array of ids (`id`); a single scalar counts as a one-element array.
    /// - Throws: what `id` throws, and `IngestError.badField` for an empty or null element.
    func idArray(named name: @autoclosure () -> String) throws -> [String]? {
        switch self {
        case .null: return nil
        case .array(let array):
            return try array.map {
                guard let id = try $0.id(named: name()) else { throw IngestError.badField(name(), "holds an empty or null id") }
                return id
            }
        default:
            return try text(named: name()).map { [$0] }
        }
    }
}
