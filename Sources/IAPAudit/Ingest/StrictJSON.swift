/// A strict RFC 8259 syntax check, refusing duplicate keys in an object (which value would count?). Foundation's parser on Linux accepts some invalid JSON
/// (trailing commas); an auditor must not: a corrupted log line is rejected, not guessed at.
enum StrictJSON {
    /// Throws `IngestError.invalidJSON` with the line and column of the first error.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var checker = Checker(bytes: bytes)
        checker.skipSpace()
        try checker.value(depth: 0)
        checker.skipSpace()
        if checker.index < bytes.count { throw checker.error("unexpected text after the JSON value") }
    }

    static func validate(_ text: String) throws {
        var copy = text
        try copy.withUTF8 { try validate($0) }
    }

    private struct Checker {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func error(_ message: String) -> IngestError {
            var line = 1, column = 1
            for i in 0..<min(index, bytes.count) {
                if bytes[i] == 0x0A { line += 1; column = 1 } else { column += 1 }
            }
            return IngestError.invalidJSON("\(message) at line \(line), column \(column)")
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw error("invalid literal") }
                index += 1
            }
        }

        mutating func value(depth: Int) throws {
            guard depth < 512 else { throw error("nesting deeper than 512") }
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try expect("true")
            case UInt8(ascii: "f"): try expect("false")
            case UInt8(ascii: "n"): try expect("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw error("unexpected character")
            }
        }

        mutating func object(depth: Int) throws {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
            var keys = Set<String>()
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error(index < bytes.count && bytes[index] == UInt8(ascii: "}") ? "trailing comma" : "expected a key string")
                }
                let keyStart = index
                try string()
                let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[keyStart..<index]), as: UTF8.self)
                if !keys.insert(key).inserted {
                    index = keyStart
                    throw error("duplicate key \(key)")
                }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma") }
                try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return }
                throw error("expected ',' or ']'")
            }
        }

        mutating func string() throws {
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { index += 1; return }
                if byte < 0x20 { throw error("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.count else { break }
                    if bytes[index] == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            index += 1
                            guard index < bytes.count, isHex(bytes[index]) else { throw error("invalid \\u escape") }
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(bytes[index]) {
                        throw error("invalid escape")
                    }
                }
                index += 1
            }
            throw error("unterminated string")
        }

        mutating func number() throws {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            if bytes[index] == UInt8(ascii: "0") { index += 1 } else { while index < bytes.count, isDigit(bytes[index]) { index += 1 } }
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
        }

        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        func isHex(_ b: UInt8) -> Bool { isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }
    }
}
