extension Unicode.Scalar {
    /// Whether a terminal would not show this scalar as itself on one line: a C0 control (`\n`, ESC…), DEL, a
    /// C1 control (U+0080–U+009F: NEL U+0085 breaks a line, CSI U+009B starts an escape sequence), the line and
    /// paragraph separators U+2028 and U+2029, or a bidi override or isolate (U+202A–U+202E, U+2066–U+2069: they
    /// reorder the text shown after them). An id holding one is rejected by the readers; printed, it is escaped.
    package var isUnprintable: Bool {
        let v = value
        if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return true }
        guard v >= 0x2028 else { return false }
        return v <= 0x202E || (v >= 0x2066 && v <= 0x2069)
    }

    /// An unprintable scalar as printed: `\n`, `\t`, `\r`, `\0` and `\u{1B}` (Swift's escapes of ASCII) below
    /// U+0080, `\u{85}`, `\u{2028}`, `\u{202E}` (uppercase hex, no leading zeros) above.
    fileprivate var printableEscape: String {
        value < 0x80 ? escaped(asASCII: true) : "\\u{" + String(value, radix: 16, uppercase: true) + "}"
    }
}

extension String {
    /// The text safe for a terminal and one line: every `Unicode.Scalar.isUnprintable` scalar (a newline in a
    /// file name or a pasted id, an escape sequence in a record, a NEL, a line separator, a bidi override) shown
    /// as `\n`, `\t`, `\u{1B}`, `\u{85}`, `\u{2028}`; the text itself when it has none.
    package var controlCharactersEscaped: String {
        guard unicodeScalars.contains(where: \.isUnprintable) else { return self }
        return unicodeScalars.map { $0.isUnprintable ? $0.printableEscape : String($0) }.joined()
    }
}

extension String {
    /// The text printed line by line: each line (between `\n`s) `controlCharactersEscaped`. What the command line
    /// writes on stderr, and on stdout but for JSON (`JSONString` escapes the same scalars as JSON does).
    package var printableLines: String {
        guard unicodeScalars.contains(where: { $0.isUnprintable && $0 != "\n" }) else { return self }
        return split(separator: "\n", omittingEmptySubsequences: false).map { String($0).controlCharactersEscaped }.joined(separator: "\n")
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether this UTF-8 text holds an `Unicode.Scalar.isUnprintable` scalar (checked byte by byte: a C0
    /// control or DEL, `C2 80`–`C2 9F`, `E2 80 A8`–`E2 80 AE`, `E2 81 A6`–`E2 81 A9`).
    package var holdsUnprintable: Bool {
        var k = 0
        while k < count {
            let c = self[k]
            if c < 0x20 || c == 0x7F { return true }
            if c == 0xC2, k + 1 < count, self[k + 1] >= 0x80 && self[k + 1] <= 0x9F { return true }
            if c == 0xE2, k + 2 < count {
                let (b1, b2) = (self[k + 1], self[k + 2])
                if b1 == 0x80 && b2 >= 0xA8 && b2 <= 0xAE { return true }
                if b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9 { return true }
            }
            k += 1
        }
        return false
    }
}
