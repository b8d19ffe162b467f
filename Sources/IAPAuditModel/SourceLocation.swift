/// Where a record came from: the input file (as given on the command line) and its 1-based line.
///
/// For whole-document JSON files the line is 1. Printed as `file:line`, the form every
/// diagnostic, rejection and finding evidence uses.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line) < (b.file, b.line)
    }
}

/// An input line (or document) that could not be imported, with the reason.
///
/// Rejections are data, not errors: they are counted, stored in table `rejection`
/// and shown on the XLSX Rejected sheet.
public struct Rejection: Hashable, Sendable {
    public var location: SourceLocation
    /// Why the line was not imported; a value it quotes has the shared secret redacted (`SecretRedaction.stored`),
    /// as the raw text.
    public var reason: String
    /// The raw text of the line: its first 4,000 characters for storage, a longer line ending in
    /// `Rejection.cutNote` (its whole text stays at its `file:line`), the shared secret redacted
    /// (`SecretRedaction.stored`: in JSON, JSON inside its strings, quoted CSV fields, form fields) before
    /// anything stores or shows it.
    public var rawText: String

    /// Characters of a rejected line's text kept in table `rejection`.
    public static let storedCharacters = 4000

    public init(location: SourceLocation, reason: String, rawText: String) {
        self.location = location
        self.reason = SecretRedaction.stored(reason)
        self.rawText = SecretRedaction.stored(Rejection.cut(rawText, to: Rejection.storedCharacters))
    }

    /// `text` if it has at most `limit` characters, else its first `limit` and the note saying so.
    public static func cut(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + cutNote(text)
    }

    /// ` … [cut: N characters in all; the whole line is at its file:line]`, N counted as Swift
    /// characters of the line (of a stored text already cut, the note is kept as it was).
    package static func cutNote(_ text: String) -> String {
        if let range = text.range(of: " … [cut: ", options: .backwards), text.hasSuffix("; the whole line is at its file:line]") {
            return String(text[range.lowerBound...])
        }
        return " … [cut: \(text.count) characters in all; the whole line is at its file:line]"
    }
}
