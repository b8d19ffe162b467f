import Foundation
import IAPAuditModel

/// A failure while rendering a `ReportWorkbook` to an .xlsx file with `XLSXWriter`.
public struct XLSXError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The libxlsxwriter call (or validation step) that failed, e.g. `"workbook_close"`.
    public var operation: String
    /// The libxlsxwriter error text (`lxw_strerror`), or a description of the invalid input.
    public var message: String
    /// The output path.
    public var path: String
    /// The worksheet concerned, if any.
    public var sheet: String?
    /// The cell concerned in A1 notation (e.g. `"C7"`), if any.
    public var cell: String?
    /// The libxlsxwriter error code (`lxw_error`), if the failure came from libxlsxwriter.
    public var code: Int?
    /// `errno` after the failed call when it set one (`ENOSPC`: the disk is full).
    public var systemError: Int32?
    /// What libxlsxwriter printed on stderr while the workbook was written (its `[ERROR] …` lines),
    /// captured so that it reaches the user inside this error.
    public var diagnostics: [String] = []

    /// The error is the disk (or its quota) being full.
    public var isDiskFull: Bool {
        systemError == ENOSPC || systemError == EDQUOT
            || diagnostics.contains { $0.contains("No space left on device") || $0.contains("quota exceeded") }
    }

    /// A libxlsxwriter line without its marks: `[ERROR]` or `[WARNING]`, then the source place it may
    /// name (`[./src/packager.c:1541]:`).
    package static func withoutLevel(_ line: String) -> String {
        var text = Substring(line)
        for mark in ["[ERROR]", "[WARNING]"] where text.hasPrefix(mark) { text = text.dropFirst(mark.count) }
        if text.hasPrefix("["), let end = text.range(of: "]:") { text = text[end.upperBound...] }
        return String(text.drop { $0 == " " })
    }

    public init(
        operation: String, message: String, path: String,
        sheet: String? = nil, cell: String? = nil, code: Int? = nil
    ) {
        (self.operation, self.message, self.path, self.sheet, self.cell, self.code) = (operation, message, path, sheet, cell, code)
    }

    public var description: String {
        var where_ = ""
        if let sheet { where_ += " sheet '\(sheet)'" }
        if let cell { where_ += (where_.isEmpty ? " cell " : ", cell ") + cell }
        let location = where_.isEmpty ? "" : " (at\(where_))"
        let codeText = code.map { " [lxw_error \($0)]" } ?? ""
        let said = diagnostics.isEmpty ? "" : "; libxlsxwriter: " + diagnostics.map(Self.withoutLevel).joined(separator: "; ")
        return "cannot write XLSX file '\(path)': \(operation): \(message)\(codeText)\(location)\(said)"
    }
}
