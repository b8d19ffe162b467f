import IAPAuditModel

/// A spreadsheet report as plain data: built by `ReportBuilder`, rendered by `XLSXWriter`.
/// Computing a report is separate from rendering it.
public struct ReportWorkbook: Sendable {
    public var sheets: [ReportSheet]
    /// The document's creation time (ms since 1970 UTC) in its properties: the audit's as-of, so the
    /// same audit gives the same bytes; nil (no as-of), or within the first second of 1970:
    /// `undatedCreatedMs`, never the clock.
    public var createdMs: Int64?

    /// The creation time of a workbook of no date: 1980-01-01T00:00:00Z, the date libxlsxwriter gives
    /// every file inside the workbook's zip.
    public static let undatedCreatedMs: Int64 = 315_532_800_000

    public init(sheets: [ReportSheet], createdMs: Int64? = nil) {
        self.sheets = sheets
        self.createdMs = createdMs
    }
}

/// One worksheet: tables placed one below another (one blank row between them), and charts.
public struct ReportSheet: Sendable {
    /// At most 31 characters, none of `[]:*?/\`.
    public var name: String
    public var tables: [ReportTable]
    public var charts: [ReportChart]

    public init(name: String, tables: [ReportTable], charts: [ReportChart] = []) {
        self.name = name
        self.tables = tables
        self.charts = charts
    }
}

/// A titled table: an optional title row, a bold header row, then data rows.
/// A sheet whose first table has no title and `isPrimary` gets a frozen header and an autofilter.
public struct ReportTable: Sendable {
    public var title: String?
    public var header: [String]
    public var rows: ReportRows
    /// Freeze the header row and put an autofilter over the table (for a sheet's main table).
    public var isPrimary: Bool
    /// A column of sentences (zero-based): its text cells wrap, widening the column to at most
    /// `ReportTable.wrapWidth` characters, and their rows grow taller (the row's cells aligned at the top).
    public var wrappedColumn: Int?

    /// Characters a wrapped column widens its column to, at most.
    public static let wrapWidth = 70

    public init(title: String? = nil, header: [String], rows: [[ReportCell]], isPrimary: Bool = false, wrappedColumn: Int? = nil) {
        self.init(title: title, header: header, rows: ReportRows(rows), isPrimary: isPrimary, wrappedColumn: wrappedColumn)
    }

    public init(title: String? = nil, header: [String], rows: ReportRows, isPrimary: Bool = false, wrappedColumn: Int? = nil) {
        self.title = title
        self.header = header
        self.rows = rows
        self.isPrimary = isPrimary
        self.wrappedColumn = wrappedColumn
    }
}

/// A table's data rows: held, or produced while the sheet is written (findings read from the store),
/// so a report of any size is written in bounded memory.
public typealias ReportRows = RecordStream<[ReportCell]>

/// One cell value.
public enum ReportCell: Sendable, Equatable {
    /// Always written as a text cell, never a formula (even when it starts with `=`, `+`, `-`, `@`).
    case text(String)
    case integer(Int64)
    case number(Double)
    /// An instant, milliseconds since 1970 UTC: written as a real date cell
    /// (`yyyy-mm-dd hh:mm:ss`, UTC).
    case dateTime(Int64)
    /// A day, milliseconds since 1970 UTC at 00:00: written as a date cell `yyyy-mm-dd`.
    case date(Int64)
    case empty
}

/// A column chart over one table of the same sheet: categories from one column, values
/// from another.
public struct ReportChart: Sendable {
    public var title: String
    /// Index of the table in `ReportSheet.tables`.
    public var tableIndex: Int
    public var categoryColumn: Int
    public var valueColumn: Int
    public var seriesName: String
    /// The number format of the category axis labels (`yyyy-mm-dd` for days), or nil for General.
    public var categoryFormat: String?

    public init(title: String, tableIndex: Int, categoryColumn: Int, valueColumn: Int, seriesName: String, categoryFormat: String? = nil) {
        self.title = title
        self.tableIndex = tableIndex
        self.categoryColumn = categoryColumn
        self.valueColumn = valueColumn
        self.seriesName = seriesName
        self.categoryFormat = categoryFormat
    }
}
