import IAPAuditModel

/// A strict parser of the NeXTSTEP ("old-style", OpenStep) property-list dictionary syntax that iOS 6
/// transaction receipts use:
///
///     { "signature" = "…"; "purchase-info" = "…"; "environment" = "Sandbox"; }
///
/// Source: Apple, "Property List Programming Guide" → "Old-Style ASCII Property Lists". Accepted:
/// a dictionary of `key = value;` entries whose keys are strings and whose values are strings or
/// nested dictionaries; strings quoted (escapes `\\ \" \n \t \r \b \f \a \v \'`, `\Uxxxx`, octal
/// `\ooo`) or unquoted (`[A-Za-z0-9_$+/:.-]+`). Arrays, data, duplicate keys, nesting
/// deeper than 16 and text after the closing brace throw `ReceiptDecodingError` with line and column.
struct OldStylePlist {
    indirect enum Value: Equatable {
        case string(String)
        case dictionary([String: Value])
    }

    static let maxDepth = 16

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one top-level dictionary filling the whole text (UTF-8).
    static func parseDictionary(_ bytes: [UInt8]) throws -> [String: Value] {
        var parser = OldStylePlist(bytes)
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.error("expected '{' to start the dictionary") }
        let dictionary = try parser.dictionary(depth: 1)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the closing '}'") }
        return dictionary
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ char: Character, _ context: String) throws {
        skipWhitespace()
        guard peek == char.asciiValue else { throw error("expected '\(char)' \(context)") }
        index += 1
    }

    private mutating func dictionary(depth: Int) throws -> [String: Value] {
        guard depth <= Self.maxDepth else { throw error("dictionaries nested deeper than \(Self.maxDepth) levels") }
        index += 1  // '{'
        var result: [String: Value] = [:]
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return result
            }
            let keyStart = index
            let key = try string()
            try expect("=", "after key \"\(key.prefix(40))\"")
            skipWhitespace()
            let value: Value = peek == UInt8(ascii: "{") ? .dictionary(try dictionary(depth: depth + 1)) : .string(try string())
            try expect(";", "after the value of \"\(key.prefix(40))\"")
            guard result.updateValue(value, forKey: key) == nil else {
                index = keyStart
                throw error("duplicate key \"\(key.prefix(40))\"")
            }
        }
    }

    private static func isUnquoted(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return "_$+/:.-".utf8.contains(byte)
        }
    }

    private mutating func string() throws -> String {
        guard let first = peek else { throw error("unexpected end of text, expected a string") }
        if first != UInt8(ascii: "\"") {
            guard Self.isUnquoted(first) else {
                switch first {
                case UInt8(ascii: "("): throw error("arrays are not supported")
                case UInt8(ascii: "<"): throw error("data values are not supported")
                default: throw error("expected a string, found '\(Unicode.Scalar(first))'")
                }
            }
            let start = index
            while let byte = peek, Self.isUnquoted(byte) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        let start = index
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek else {
                index = start
                throw error("unterminated string")
            }
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte != UInt8(ascii: "\\") {
                utf8.append(byte)
                continue
            }
            try escape(into: &utf8)
        }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            index = start
            throw error("string is not valid UTF-8")
        }
        return text
    }

    private mutating func escape(into utf8: inout [UInt8]) throws {
        guard let code = peek else { throw error("unterminated escape") }
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "\""): 0x22, UInt8(ascii: "'"): 0x27, UInt8(ascii: "n"): 0x0A,
            UInt8(ascii: "t"): 0x09, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C,
            UInt8(ascii: "a"): 0x07, UInt8(ascii: "v"): 0x0B,
        ]
        if let byte = simple[code] {
            utf8.append(byte)
        } else if code == UInt8(ascii: "U") {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16),
                let scalar = Unicode.Scalar(value)
            else { throw error("bad \\U escape (expected 4 hex digits)") }
            index += 4
            utf8 += Array(String(Character(scalar)).utf8)
        } else if (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(code) {
            var value = UInt32(code - UInt8(ascii: "0"))
            var count = 1
            while count < 3, let next = peek, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(next) {
                value = value * 8 + UInt32(next - UInt8(ascii: "0"))
                index += 1
                count += 1
            }
            guard value <= 0xFF else { throw error("octal escape above \\377") }
            utf8.append(UInt8(value))
        } else {
            index -= 2
            throw error("unknown escape '\\\(Unicode.Scalar(code))'")
        }
    }

    private func error(_ message: String) -> ReceiptDecodingError {
        let upTo = bytes[..<min(index, bytes.count)]
        let line = upTo.filter { $0 == 0x0A }.count + 1
        let column = upTo.count - (upTo.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return ReceiptDecodingError("old-style plist: \(message) at line \(line), column \(column)")
    }
}
