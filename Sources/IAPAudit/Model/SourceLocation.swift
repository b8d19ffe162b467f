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
    public var reason: String
    /// The raw text of the line (truncated to 4,000 characters for storage).
    public var rawText: String

    public init(location: SourceLocation, reason: String, rawText: String) {
        self.location = location
        self.reason = reason
        self.rawText = rawText.count > 4000 ? String(rawText.prefix(4000)) : rawText
    }
}
