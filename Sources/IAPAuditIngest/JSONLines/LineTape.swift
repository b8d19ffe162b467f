import Foundation
import IAPAuditModel

/// The fast path's JSON scanner: validates one JSON Lines record in place (no copy of the line) and
/// records where each value lies, in a token buffer reused from line to line.
///
/// It accepts only what the strict reader (`JSONTape`) accepts, and gives up — `parse` returns false —
/// on anything it is not sure of: invalid JSON, an escaped key, nesting deeper than `maxDepth` or more keys an
/// object than `maxKeys` (the strict reader applies the `depth` and `fields` limits and says which). A
/// line it gives up on is read again by the strict reader, which gives the verdict and the message
/// (`… at line 1, column C`); so this scanner decides speed, never correctness. Strings are checked 8
/// bytes at a time (a quote, backslash, control byte or non-ASCII byte stops the fast loop).
struct LineTape: ~Copyable {
    /// What a token is (one byte); `absent` is what a reader's slot holds for a member not there.
    enum Kind: UInt8 {
        case object, array, string, number, falseValue, trueValue, null, absent = 255
    }

    /// One value. Strings cover their content without the quotes; containers their whole text.
    struct Token {
        var kind: Kind
        /// A string holding a backslash escape.
        var escaped: Bool
        var start: UInt32
        var end: UInt32
        /// Index of the token after this value and everything inside it.
        var next: UInt32
    }

    /// Deeper nesting, or more keys in one object, is left to the strict reader (whose limits are `depth` and `fields`:
    /// 128 and 10,000 by default); lower when those limits are.
    let maxDepth: Int
    let maxKeys: Int

    private(set) var tokens: UnsafeMutablePointer<Token>
    private var capacity: Int
    private(set) var count = 0
    private(set) var base = UnsafePointer<UInt8>(bitPattern: 1)!
    private var end = 0
    private var i = 0

    init(limits: InputLimits = InputLimits()) {
        maxDepth = min(64, limits.depth)
        maxKeys = min(128, limits.fields)
        capacity = 256
        tokens = .allocate(capacity: capacity)
    }

    deinit { tokens.deallocate() }

    /// Scans the `length` bytes at `start` as one JSON value (white space around it allowed).
    /// Returns false when the strict reader must decide.
    mutating func parse(_ start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        base = start
        end = length
        i = 0
        count = 0
        skipSpace()
        guard value(0) else { return false }
        skipSpace()
        return i == end
    }

    @inline(__always) subscript(_ index: Int) -> Token { tokens[index] }

    // MARK: Scanning

    @inline(__always) private mutating func push(_ kind: Kind, _ start: Int, _ stop: Int, escaped: Bool = false) {
        if count == capacity { grow() }
        tokens[count] = Token(kind: kind, escaped: escaped, start: UInt32(start), end: UInt32(stop), next: UInt32(count + 1))
        count += 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Token>.allocate(capacity: capacity * 2)
        bigger.update(from: tokens, count: count)
        tokens.deallocate()
        tokens = bigger
        capacity *= 2
    }

    @inline(__always) private mutating func skipSpace() {
        while i < end {
            let b = base[i]
            guard b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D else { return }
            i += 1
        }
    }

    private mutating func value(_ depth: Int) -> Bool {
        guard depth < maxDepth, i < end else { return false }
        switch base[i] {
        case UInt8(ascii: "{"): return object(depth)
        case UInt8(ascii: "["): return array(depth)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal(0x6575_7274, length: 4, Kind.trueValue)  // "true"
        case UInt8(ascii: "n"): return literal(0x6C6C_756E, length: 4, Kind.null)  // "null"
        case UInt8(ascii: "f"):
            guard i + 5 <= end, base[i + 4] == UInt8(ascii: "e") else { return false }
            return literal(0x736C_6166, length: 5, Kind.falseValue)  // "fals" + "e"
        default: return number()
        }
    }

    /// `word`: the literal's first four bytes, little-endian.
    @inline(__always) private mutating func literal(_ word: UInt32, length: Int, _ kind: Kind) -> Bool {
        guard i + length <= end, UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self) == word else { return false }
        push(kind, i, i + length)
        i += length
        return true
    }

    @inline(__always) private func isDigit(_ at: Int) -> Bool { at < end && base[at] &- 0x30 < 10 }

    private mutating func number() -> Bool {
        let start = i
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return false }
        if base[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < end, base[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        push(Kind.number, start, i)
        return true
    }

    private mutating func string() -> Bool {
        i += 1
        let start = i
        var escaped = false
        while true {
            // 8 bytes at a time while none is a quote, a backslash, a control, DEL or a non-ASCII byte (DEL: the strict
            // reader rejects it in a text field, so the string is marked below; found by the fuzz driver).
            while i + 8 <= end {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let quote = w ^ 0x2222_2222_2222_2222
                let backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
                let del = w ^ 0x7F7F_7F7F_7F7F_7F7F
                let special =
                    ((quote &- 0x0101_0101_0101_0101) & ~quote) | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                    | ((del &- 0x0101_0101_0101_0101) & ~del) | ((w &- 0x2020_2020_2020_2020) & ~w) | w
                if special & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < end else { return false }
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                push(Kind.string, start, i, escaped: escaped)
                i += 1
                return true
            }
            if c < 0x20 { return false }
            if c == UInt8(ascii: "\\") {
                escaped = true
                guard escape() else { return false }
            } else if c >= 0x80 {
                // A C1 control, a line separator or a bidi control: the strict reader rejects it in a text field.
                if c == 0xC2 || c == 0xE2, UnsafeBufferPointer(start: base + i, count: min(3, end - i)).holdsUnprintable { escaped = true }
                guard utf8Sequence() else { return false }
            } else {
                if c == 0x7F { escaped = true }
                i += 1
            }
        }
    }

    private mutating func escape() -> Bool {
        i += 1
        guard i < end else { return false }
        switch base[i] {
        case UInt8(ascii: "u"):
            guard i + 4 < end else { return false }
            for k in 1...4 {
                let h = base[i + k]
                guard h &- 0x30 < 10 || (h | 0x20) &- 0x61 < 6 else { return false }
            }
            // A surrogate (D800–DFFF) must be paired: the strict reader checks that.
            let first = base[i + 1] | 0x20
            let second = base[i + 2] | 0x20
            if first == UInt8(ascii: "d") && (second == UInt8(ascii: "8") || second == UInt8(ascii: "9") || second >= UInt8(ascii: "a")) {
                return false
            }
            i += 5
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            i += 1
        default:
            return false
        }
        return true
    }

    /// One multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates).
    private mutating func utf8Sequence() -> Bool {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch base[i] {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return false
        }
        guard i + length <= end, base[i + 1] >= low, base[i + 1] <= high else { return false }
        var k = 2
        while k < length {
            guard base[i + k] & 0xC0 == 0x80 else { return false }
            k += 1
        }
        i += length
        return true
    }

    private mutating func object(_ depth: Int) -> Bool {
        let me = count
        if open(.object, closing: UInt8(ascii: "}")) { return close(me) }
        var keys = 0
        while true {
            skipSpace()
            keys &+= 1
            guard i < end, base[i] == UInt8(ascii: "\""), keys <= maxKeys else { return false }
            let key = count
            guard string(), !tokens[key].escaped, !isDuplicate(key, in: me) else { return false }
            skipSpace()
            guard i < end, base[i] == UInt8(ascii: ":") else { return false }
            i += 1
            skipSpace()
            guard value(depth + 1) else { return false }
            if let closed = afterMember(me, closing: UInt8(ascii: "}")) { return closed }
        }
    }

    /// True when the key token `key` repeats an earlier key of the object at `object`.
    @inline(__always) private func isDuplicate(_ key: Int, in object: Int) -> Bool {
        let k = tokens[key]
        let length = Int(k.end &- k.start)
        var other = object + 1
        while other < key {
            let o = tokens[other]
            if Int(o.end &- o.start) == length && memcmp(base + Int(o.start), base + Int(k.start), length) == 0 { return true }
            other = Int(tokens[other + 1].next)
        }
        return false
    }

    private mutating func array(_ depth: Int) -> Bool {
        let me = count
        if open(.array, closing: UInt8(ascii: "]")) { return close(me) }
        while true {
            skipSpace()
            guard value(depth + 1) else { return false }
            if let closed = afterMember(me, closing: UInt8(ascii: "]")) { return closed }
        }
    }

    /// Pushes the container opening at `i` and steps into it; true when `closing` follows at once (`{}`, `[]`).
    @inline(__always) private mutating func open(_ kind: Kind, closing: UInt8) -> Bool {
        push(kind, i, 0)
        i += 1
        skipSpace()
        return i < end && base[i] == closing
    }

    /// After a member of the container at token `container`: nil when a `,` follows (passed: another member comes), else
    /// whether `closing` ends the container there (closed).
    @inline(__always) private mutating func afterMember(_ container: Int, closing: UInt8) -> Bool? {
        skipSpace()
        guard i < end else { return false }
        if base[i] == UInt8(ascii: ",") {
            i += 1
            return nil
        }
        return base[i] == closing && close(container)
    }

    @inline(__always) private mutating func close(_ container: Int) -> Bool {
        i += 1
        tokens[container].end = UInt32(i)
        tokens[container].next = UInt32(count)
        return true
    }
}
