import Foundation
import IAPAuditModel

/// Why the fast path hands a line to the strict reader: anything it is not sure to read exactly as
/// the strict reader would (an unusual type, an escape, a bad value — whose message the strict reader gives).
struct Unsure: Error {}

/// A read-only view of a scanned line (`LineTape`), valid until the tape scans the next line: the
/// field conversions of the fast readers, by value slot instead of key. Each carries the name and the
/// rules of the strict vocabulary (`RecordObject.text`, `id`, `integer`, `bool`, `timestamp`): it
/// returns what the strict reader returns, or throws `Unsure` where that would do anything else
/// (the strict reader then reads the line and gives the value or the error).
struct TapeView {
    let tokens: UnsafePointer<LineTape.Token>
    let base: UnsafePointer<UInt8>

    init(_ tape: borrowing LineTape) {
        tokens = UnsafePointer(tape.tokens)
        base = tape.base
    }

    @inline(__always) func token(_ index: Int32) -> LineTape.Token { tokens[Int(index)] }

    @inline(__always) func kind(_ index: Int32) -> LineTape.Kind { index < 0 ? .absent : tokens[Int(index)].kind }
    /// The value at `index`; nil when absent (`index < 0`) or null.
    @inline(__always) func present(_ index: Int32) -> LineTape.Token? {
        guard index >= 0 else { return nil }
        let t = tokens[Int(index)]
        return t.kind == LineTape.Kind.null ? nil : t
    }

    /// Fills `slots[k]` with the value token of member `keys.names[k]` of the object at `object`
    /// (-1 when absent). Members not in `keys` are skipped.
    @inline(__always)
    func members(of object: Int32, _ keys: KeyTable, _ slots: UnsafeMutablePointer<Int32>) {
        for k in 0..<keys.names.count { slots[k] = -1 }
        var i = Int(object) + 1
        let end = Int(tokens[Int(object)].next)
        while i < end {
            let key = tokens[i]
            let slot = keys.slot(base + Int(key.start), Int(key.end &- key.start))
            if slot >= 0 { slots[slot] = Int32(i + 1) }
            i = Int(tokens[i + 1].next)
        }
    }

    /// Element token indexes of the array at `array`.
    func elements(of array: Int32, _ body: (Int32) throws(Unsure) -> Void) throws(Unsure) {
        var i = Int(array) + 1
        let end = Int(tokens[Int(array)].next)
        while i < end {
            try body(Int32(i))
            i = Int(tokens[i].next)
        }
    }

    /// The bytes of a token (a string's content, a number's digits).
    @inline(__always) func bytes(_ t: LineTape.Token) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(t.start), count: Int(t.end &- t.start))
    }

    // MARK: Values

    /// Exact text of a scalar: a string as it is, a whole number's digits as written; nil when absent
    /// or null — what the strict `RecordObject.text` returns, or `Unsure` (an escape, more than 4,096
    /// bytes, a fraction or exponent, any other type).
    @inline(__always)
    func text(_ index: Int32) throws(Unsure) -> UnsafeBufferPointer<UInt8>? {
        guard let t = present(index) else { return nil }
        switch t.kind {
        case LineTape.Kind.string:
            guard !t.escaped, t.end &- t.start <= UInt32(FieldValue.maxTextLength) else { throw Unsure() }
            return bytes(t)
        case LineTape.Kind.number:
            let b = bytes(t)
            guard Self.isWholeNumber(b) else { throw Unsure() }
            return b
        default: throw Unsure()
        }
    }

    /// An id: exact text, or a whole number with every digit (semantics.md rule 1); nil when absent, null
    /// or empty — what the strict `RecordObject.id` returns, or `Unsure` (what `text` is unsure of,
    /// white space at an end, or what might be an id in floating-point form: `2000000400594084.0`,
    /// `2.00000041234568E+15`, which the strict reader rejects).
    @inline(__always)
    func id(_ index: Int32) throws(Unsure) -> UnsafeBufferPointer<UInt8>? {
        guard let b = try text(index), !b.isEmpty else { return nil }
        // White space at either end (a space, or any non-ASCII scalar there): the strict reader decides.
        if b[0] == 0x20 || b[0] >= 0x80 || b[b.count - 1] == 0x20 || b[b.count - 1] >= 0x80 { throw Unsure() }
        // Digits first: an id of digits and only '.', 'e', '+', '-' besides might be in floating-point form.
        if b[0] &- 0x30 < 10 {
            var i = 1
            while i < b.count && b[i] &- 0x30 < 10 { i += 1 }
            if i < b.count
                && b[i...].allSatisfy({
                    $0 &- 0x30 < 10 || $0 | 0x20 == UInt8(ascii: "e") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "+")
                        || $0 == UInt8(ascii: "-")
                })
            {
                throw Unsure()
            }
        }
        return b
    }

    /// A whole number sent as a number or as numeric text; nil when absent or null — what the strict
    /// `RecordObject.integer` (without `allowFraction`) returns, or `Unsure` (blank or spaced text, a
    /// fraction, an escape, more than 18 digits, beyond ±2^53 (`ExactNumber`), any other type).
    @inline(__always)
    func integer(_ index: Int32) throws(Unsure) -> Int64? {
        guard let t = present(index) else { return nil }
        switch t.kind {
        case LineTape.Kind.number, LineTape.Kind.string:
            guard !t.escaped, let v = Self.int64(bytes(t)), ExactNumber.holds(v) else { throw Unsure() }
            return v
        default: throw Unsure()
        }
    }

    /// A boolean: `true`/`false`, or the strings `"true"`, `"false"`, `"1"`, `"0"` (semantics.md rule 5);
    /// nil when absent, null or `""` — what the strict `RecordObject.bool` returns, or `Unsure` (any
    /// other value, which the strict reader refuses).
    @inline(__always)
    func bool(_ index: Int32) throws(Unsure) -> Bool? {
        guard let t = present(index) else { return nil }
        switch t.kind {
        case LineTape.Kind.trueValue: return true
        case LineTape.Kind.falseValue: return false
        case LineTape.Kind.string:
            let b = bytes(t)
            if b.isEmpty { return nil }
            if b.count == 1 {
                if b[0] == UInt8(ascii: "1") { return true }
                if b[0] == UInt8(ascii: "0") { return false }
            }
            if Self.equals(b, "true") { return true }
            if Self.equals(b, "false") { return false }
            throw Unsure()
        default: throw Unsure()
        }
    }

    /// An instant in milliseconds since 1970 UTC: epoch milliseconds as a number, or ISO 8601 / Apple's
    /// text dates; nil when absent, null or `""` — what the strict `RecordObject.timestamp` returns (for
    /// the `*_ms` date fields too), or `Unsure` (a fraction, a number outside 1900–2200, an escape, a
    /// text form `Timestamp.fastParseMs` does not know).
    @inline(__always)
    func timestamp(_ index: Int32) throws(Unsure) -> Int64? {
        guard let t = present(index) else { return nil }
        switch t.kind {
        case LineTape.Kind.number:
            guard let ms = Self.int64(bytes(t)), Timestamp.validRange.contains(ms) else { throw Unsure() }
            return ms
        case LineTape.Kind.string:
            guard !t.escaped else { throw Unsure() }
            let b = bytes(t)
            if b.isEmpty { return nil }
            guard let ms = Timestamp.fastParseMs(b) else { throw Unsure() }
            return ms
        default: throw Unsure()
        }
    }

    // MARK: Bytes

    /// Digits with an optional leading minus (what `FieldValue.text` calls a whole number).
    @inline(__always) static func isWholeNumber(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return false }
        while i < b.count {
            guard b[i] &- 0x30 < 10 else { return false }
            i += 1
        }
        return true
    }

    /// `Int64(text)` for digits with an optional minus; nil on anything else or overflow.
    @inline(__always) static func int64(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard i < b.count, b.count - i <= 18 else { return nil }  // 18 digits never overflow
        var v: Int64 = 0
        while i < b.count {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int64(d)
            i += 1
        }
        return negative ? -v : v
    }

    @inline(__always) static func equals(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
        b.count == s.utf8CodeUnitCount && memcmp(b.baseAddress!, s.utf8Start, b.count) == 0
    }
}
