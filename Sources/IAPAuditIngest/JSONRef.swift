import Foundation
import IAPAuditModel

/// One value inside a `JSONTape`, read lazily: nothing is decoded until asked for.
struct JSONRef {
    let tape: JSONTape
    let index: Int

    var token: JSONTape.Token { tape.tokens[index] }
    var kind: JSONTape.Kind { token.kind }

    /// The member named `key` of an object (nil when absent or when this is not an object).
    subscript(key: String) -> JSONRef? {
        guard kind == .object else { return nil }
        var key = key
        return key.withUTF8 { wanted -> JSONRef? in
            let tokens = tape.tokens
            var i = index + 1
            let end = Int(tokens[index].next)
            while i < end {
                let k = tokens[i]
                if matches(k, wanted) { return JSONRef(tape: tape, index: i + 1) }
                i = Int(tokens[i + 1].next)
            }
            return nil
        }
    }

    private func matches(_ k: JSONTape.Token, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        if k.escaped { return JSONRef.decodeString(tape.bytes, k).utf8.elementsEqual(wanted) }
        let n = Int(k.end - k.start)
        guard n == wanted.count else { return false }
        return tape.bytes.withUnsafeBufferPointer { bytes in
            let start = bytes.baseAddress! + Int(k.start)
            // Keys of one object mostly differ early: compare the first and last bytes before memcmp.
            guard n == 0 || (start[0] == wanted[0] && start[n - 1] == wanted[n - 1]) else { return false }
            return memcmp(start, wanted.baseAddress!, n) == 0
        }
    }

    /// Member names of an object, in order.
    var keys: [String] {
        guard kind == .object else { return [] }
        var result: [String] = []
        var i = index + 1
        while i < Int(token.next) {
            result.append(JSONRef.decodeString(tape.bytes, tape.tokens[i]))
            i = Int(tape.tokens[i + 1].next)
        }
        return result
    }

    /// Elements of an array.
    var elements: [JSONRef] {
        guard kind == .array else { return [] }
        var result: [JSONRef] = []
        var i = index + 1
        while i < Int(token.next) {
            result.append(JSONRef(tape: tape, index: i))
            i = Int(tape.tokens[i].next)
        }
        return result
    }

    /// The value's own text as written (a number's digits, an object's whole JSON).
    var rawText: String {
        let t = token
        let start = Int(t.start) - (t.kind == .string ? 1 : 0)
        let end = Int(t.end) + (t.kind == .string ? 1 : 0)
        return String(decoding: tape.bytes[start..<end], as: UTF8.self)
    }

    /// For messages: "a string", "a number"… (`FieldValue.typeName`, without decoding the value).
    var typeName: String {
        switch kind {
        case .null: return "null"
        case .trueValue, .falseValue: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The field value, decoded; nested objects stay lazy.
    var value: FieldValue {
        switch kind {
        case .null: return .null
        case .trueValue: return .bool(true)
        case .falseValue: return .bool(false)
        case .number: return .number(rawText)
        case .string: return .string(JSONRef.decodeString(tape.bytes, token))
        case .array: return .array(elements.map(\.value))
        case .object: return .object(self)
        }
    }

    /// A string token's content with escapes decoded (the tape already validated it).
    static func decodeString(_ bytes: [UInt8], _ t: JSONTape.Token) -> String {
        let range = Int(t.start)..<Int(t.end)
        if !t.escaped { return String(decoding: bytes[range], as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        func hex(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for j in at..<at + 4 {
                let c = bytes[j]
                v = v << 4 | UInt32(c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10)
            }
            return v
        }
        while i < range.upperBound {
            let b = bytes[i]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(i)
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00, i + 6 <= range.upperBound, bytes[i] == UInt8(ascii: "\\"),
                    bytes[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension JSONRef: RecordObject {
    func field(_ key: String) -> FieldValue? { self[key]?.value }
    func has(_ key: String) -> Bool { self[key] != nil }
    var fieldNames: [String] { keys }
}
