extension String {
    /// The text safe for a terminal and one line: control characters (a newline in a file name or a pasted
    /// id, an escape sequence in a record) shown as `\n`, `\t`, `\u{1B}`; the text itself when it has none.
    package var controlCharactersEscaped: String {
        guard unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return self }
        return unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined()
    }
}
