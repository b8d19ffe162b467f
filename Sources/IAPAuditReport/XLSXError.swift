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
        return "cannot write XLSX file '\(path)': \(operation): \(message)\(codeText)\(location)"
    }
}
