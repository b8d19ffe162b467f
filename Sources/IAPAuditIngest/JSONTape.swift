import IAPAuditModel

/// A strict RFC 8259 parser that records where every value lies in the bytes (a "tape") instead of
/// building objects, so a reader materializes only the fields it reads.
///
/// Strict: a trailing comma, a key given twice in one object (which value would count?), a control
/// character or invalid UTF-8 in a string, an invalid escape or number, or text after the value is
/// an error — an auditor rejects a corrupted log line instead of guessing at it. Errors are
/// `IngestError.invalidJSON("<what> at line L, column C")`.
final class JSONTape {
    enum Kind: UInt8 { case object, array, string, number, trueValue, falseValue, null }

    /// One value. Strings cover their content without the quotes; objects and arrays their whole text.
    struct Token {
        var kind: Kind
        /// A string holding a backslash escape (decoded on read).
        var escaped: Bool
        var start: Int32
        var end: Int32
        /// Index of the token after this value and everything inside it.
        var next: Int32
    }

    let bytes: [UInt8]
    private(set) var tokens: [Token] = []

    /// Parses one JSON value filling all of `bytes` (surrounding white space allowed): nested at most `limits.depth`
    /// deep, at most `limits.fields` keys an object (over either is an error naming the limit).
    /// Throws `IngestError.invalidJSON`.
    init(_ bytes: [UInt8], limits: InputLimits = InputLimits()) throws {
        self.bytes = bytes
        guard bytes.count < Int(Int32.max) else { throw IngestError.invalidJSON("a single JSON value larger than 2 GB") }
        tokens.reserveCapacity(64)
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer, array: bytes, limits: limits)
            parser.skipSpace()
            try parser.value(depth: 0, into: &tokens)
            parser.skipSpace()
            if parser.index < buffer.count { throw parser.error("unexpected text after the JSON value") }
        }
    }

    /// The top-level value.
    var root: JSONRef { JSONRef(tape: self, index: 0) }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        /// The same bytes, for decoding an escaped key (never copied per key).
        let array: [UInt8]
        let limits: InputLimits
        var index = 0
        /// Keys an object holds before its duplicates are found through a set rather than by comparing with each.
        static let linearKeys = 32

        mutating func skipSpace() {
            while index < bytes.count {
                let b = bytes[index]
                guard b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D else { return }
                index += 1
            }
        }

        func error(_ message: String) -> IngestError {
            var line = 1
            var column = 1
            for i in 0..<min(index, bytes.count) {
                if bytes[i] == 0x0A {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return IngestError.invalidJSON("\(message) at line \(line), column \(column)")
        }

        mutating func literal(_ text: StaticString, _ kind: Kind, into tokens: inout [Token]) throws {
            let start = index
            let count = text.utf8CodeUnitCount
            for i in 0..<count where index + i >= bytes.count || bytes[index + i] != text.utf8Start[i] {
                index += i  // the error names the first byte that differs
                throw error("invalid literal")
            }
            index += count
            tokens.append(Token(kind: kind, escaped: false, start: Int32(start), end: Int32(index), next: Int32(tokens.count + 1)))
        }

        mutating func value(depth: Int, into tokens: inout [Token]) throws {
            guard depth < limits.depth else { throw error("nesting deeper than \(limits.described("depth"))") }
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(depth: depth, into: &tokens)
            case UInt8(ascii: "["): try array(depth: depth, into: &tokens)
            case UInt8(ascii: "\""): try string(into: &tokens)
            case UInt8(ascii: "t"): try literal("true", .trueValue, into: &tokens)
            case UInt8(ascii: "f"): try literal("false", .falseValue, into: &tokens)
            case UInt8(ascii: "n"): try literal("null", .null, into: &tokens)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(into: &tokens)
            default: throw error("unexpected character")
            }
        }

        mutating func object(depth: Int, into tokens: inout [Token]) throws {
            let me = tokens.count
            if open(.object, closing: UInt8(ascii: "}"), into: &tokens) { return }
            var keys: [Int] = []
            // Past `linearKeys` keys, the decoded keys (an object of 10,000 keys is not compared pair by pair).
            var seen: Set<[UInt8]> = []
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error(index < bytes.count && bytes[index] == UInt8(ascii: "}") ? "trailing comma" : "expected a key string")
                }
                guard keys.count < limits.fields else { throw error("an object with more keys than \(limits.described("fields"))") }
                let keyStart = index
                let keyToken = tokens.count
                try string(into: &tokens)
                var duplicate = false
                if keys.count < Self.linearKeys {
                    duplicate = keys.contains { sameKey(tokens[$0], tokens[keyToken]) }
                } else {
                    if seen.isEmpty { seen = Set(keys.map { decodedKey(tokens[$0]) }) }
                    duplicate = !seen.insert(decodedKey(tokens[keyToken])).inserted
                }
                if duplicate {
                    index = keyStart
                    let key = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[keyStart..<Int(tokens[keyToken].end) + 1]), as: UTF8.self)
                    throw error("duplicate key \(key)")
                }
                keys.append(keyToken)
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipSpace()
                try value(depth: depth + 1, into: &tokens)
                if try afterMember(me, closing: UInt8(ascii: "}"), of: "an object", into: &tokens) { return }
            }
        }

        /// Keys compared as written; escaped keys compared after decoding.
        func sameKey(_ a: Token, _ b: Token) -> Bool {
            if !a.escaped && !b.escaped {
                let n = Int(a.end - a.start)
                guard n == Int(b.end - b.start) else { return false }
                for i in 0..<n where bytes[Int(a.start) + i] != bytes[Int(b.start) + i] { return false }
                return true
            }
            // As decoded text, byte for byte (not Swift's canonical equivalence: `é` and `e` + U+0301 differ).
            return decodedKey(a) == decodedKey(b)
        }

        /// A key's bytes once its escapes are decoded.
        func decodedKey(_ key: Token) -> [UInt8] { Array(JSONRef.decodeString(array, key).utf8) }

        mutating func array(depth: Int, into tokens: inout [Token]) throws {
            let me = tokens.count
            if open(.array, closing: UInt8(ascii: "]"), into: &tokens) { return }
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma") }
                try value(depth: depth + 1, into: &tokens)
                if try afterMember(me, closing: UInt8(ascii: "]"), of: "an array", into: &tokens) { return }
            }
        }

        /// Pushes the container opening at `index` and steps into it; true when `closing` follows at once (`{}`, `[]`:
        /// closed).
        @inline(__always) mutating func open(_ kind: Kind, closing: UInt8, into tokens: inout [Token]) -> Bool {
            let me = tokens.count
            tokens.append(Token(kind: kind, escaped: false, start: Int32(index), end: 0, next: 0))
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == closing else { return false }
            close(me, into: &tokens)
            return true
        }

        /// After a member of the container at token `container` (`what`: "an object", "an array"): false when a `,`
        /// follows (passed: another member comes), true when `closing` ends it (closed); else throws.
        @inline(__always) mutating func afterMember(_ container: Int, closing: UInt8, of what: String, into tokens: inout [Token])
            throws -> Bool
        {
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input in \(what)") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return false
            }
            guard bytes[index] == closing else { throw error("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
            close(container, into: &tokens)
            return true
        }

        /// Steps past the container's closing byte: its token ends there, and the next token follows its members.
        @inline(__always) mutating func close(_ container: Int, into tokens: inout [Token]) {
            index += 1
            tokens[container].end = Int32(index)
            tokens[container].next = Int32(tokens.count)
        }

        mutating func string(into tokens: inout [Token]) throws {
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    tokens.append(
                        Token(kind: .string, escaped: escaped, start: Int32(start), end: Int32(index), next: Int32(tokens.count + 1)))
                    index += 1
                    return
                }
                if byte < 0x20 { throw error("control character in a string") }
                if byte >= 0x80 {
                    try utf8Sequence()
                    continue
                }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                    guard index < bytes.count else { break }
                    if bytes[index] == UInt8(ascii: "u") {
                        let escape = index - 1
                        let unit = try hexUnit()
                        // A surrogate must come as a pair (high then low): alone it is no character.
                        if unit >= 0xDC00 && unit < 0xE000 { throw loneSurrogate(at: escape) }
                        if unit >= 0xD800 && unit < 0xDC00 {
                            guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u")
                            else { throw loneSurrogate(at: escape) }
                            index += 2
                            let low = try hexUnit()
                            guard low >= 0xDC00 && low < 0xE000 else { throw loneSurrogate(at: escape) }
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(bytes[index]) {
                        throw error("invalid escape")
                    }
                }
                index += 1
            }
            throw error("unterminated string")
        }

        /// The error for a `\u` escape of half a surrogate pair, located at its backslash (`escape`).
        mutating func loneSurrogate(at escape: Int) -> IngestError {
            index = escape
            return error("invalid \\u escape (a lone surrogate)")
        }

        /// The four hex digits after the `u` at `index`, as a UTF-16 unit (`index` left on the last digit).
        mutating func hexUnit() throws -> UInt32 {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                index += 1
                guard index < bytes.count, isHex(bytes[index]) else { throw error("invalid \\u escape") }
                let c = bytes[index]
                unit = unit << 4 | UInt32(c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10)
            }
            return unit
        }

        /// One multi-byte UTF-8 sequence starting at `index` (RFC 3629: no overlongs, no surrogates).
        mutating func utf8Sequence() throws {
            let lead = bytes[index]
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: throw error("invalid UTF-8 in a string")
            }
            guard index + length <= bytes.count else { throw error("invalid UTF-8 in a string") }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { throw error("invalid UTF-8 in a string") }
            for i in 2..<max(2, length) where bytes[index + i] & 0xC0 != 0x80 { throw error("invalid UTF-8 in a string") }
            index += length
        }

        mutating func number(into tokens: inout [Token]) throws {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            tokens.append(Token(kind: .number, escaped: false, start: Int32(start), end: Int32(index), next: Int32(tokens.count + 1)))
        }

        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        func isHex(_ b: UInt8) -> Bool { isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }
    }
}
