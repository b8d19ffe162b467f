import IAPAuditModel

/// A spreadsheet report as plain data: built by `ReportBuilder`, rendered by `XLSXWriter`.
/// Computing a report is separate from rendering it.
public struct ReportWorkbook: Sendable {
    public var sheets: [ReportSheet]
    /// The document's creation time (ms since 1970 UTC) in its properties: the audit's as-of, so the
    /// same audit gives the same bytes; nil (no as-of), or within the first second of 1970:
    /// `undatedCreatedMs`, never the clock.
    public var createdMs: Int64?
    /// Printed at the left of every page's footer (the sheet's name and `page N of M` on the right); nil: no
    /// footer.
    public var footer: String?

    /// The creation time of a workbook of no date: 1980-01-01T00:00:00Z, the date libxlsxwriter gives
    /// every file inside the workbook's zip.
    public static let undatedCreatedMs: Int64 = 315_532_800_000

    public init(sheets: [ReportSheet], createdMs: Int64? = nil, footer: String? = nil) {
        self.sheets = sheets
        self.createdMs = createdMs
        self.footer = footer
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

/// A titled table: an optional title row, an optional row of notes, a bold header row, data rows, then
/// footer rows (totals). The sheet's first `isPrimary` table gets a frozen header, an autofilter over its
/// data rows and its notes and header repeated on every printed page.
///
/// Rows are numbered for formulas (`ReportReference`): the data rows from 0, then the footer rows.
public struct ReportTable: Sendable {
    public var title: String?
    /// One short sentence per column saying what it holds, in a row above the header (wrapped, in a
    /// smaller italic font; its columns at least `ReportTable.noteWidth` characters wide). Empty: no row.
    public var notes: [String] = []
    public var header: [String]
    public var rows: ReportRows
    /// Rows after the data rows (totals: bold, a line above), outside the autofilter.
    public var footer: [[ReportCell]] = []
    /// Freeze the header row and put an autofilter over the table (for a sheet's main table).
    public var isPrimary: Bool
    /// A column of sentences (zero-based): its text cells wrap, widening the column to at most
    /// `ReportTable.wrapWidth` characters, and their rows grow taller (the row's cells aligned at the top).
    public var wrappedColumn: Int?
    /// Its text wraps within the widths the sheet's tables above gave the columns (its rows grow taller),
    /// instead of widening them: a table listed below a wide one.
    public var wrapsToWidths = false

    /// Characters a wrapped column widens its column to, at most.
    public static let wrapWidth = 70
    /// Characters a column with a note is widened to, at least.
    public static let noteWidth = 16

    /// A note: a title row alone (no header, no rows).
    public static func note(_ text: String) -> ReportTable { ReportTable(title: text, header: [], rows: []) }

    public init(
        title: String? = nil, notes: [String] = [], header: [String], rows: [[ReportCell]], footer: [[ReportCell]] = [],
        isPrimary: Bool = false, wrappedColumn: Int? = nil, wrapsToWidths: Bool = false
    ) {
        self.init(
            title: title, notes: notes, header: header, rows: ReportRows(rows), footer: footer, isPrimary: isPrimary,
            wrappedColumn: wrappedColumn)
        self.wrapsToWidths = wrapsToWidths
    }

    public init(
        title: String? = nil, notes: [String] = [], header: [String], rows: ReportRows, footer: [[ReportCell]] = [],
        isPrimary: Bool = false, wrappedColumn: Int? = nil
    ) {
        self.title = title
        self.notes = notes
        self.header = header
        self.rows = rows
        self.footer = footer
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
    /// Text in bold (a heading inside a table).
    case strong(String)
    case integer(Int64)
    /// An amount: the cell holds the exact integer milliunits (1 unit of `currency` = 1000), shown in units
    /// of the currency by its number format (`#,##0.00,`: the trailing comma divides by 1000), with the
    /// currency's decimals (JPY none), more when the amount is finer. Sums of such cells stay exact.
    case money(Int64, currency: String)
    /// A formula and the value it computes, written beside it so that a reader that does not recalculate
    /// shows the same number (`.integer` or `.money`, whose format the cell takes).
    indirect case formula(ReportFormula, cached: ReportCell)
    case number(Double)
    /// An instant, milliseconds since 1970 UTC: written as a real date cell
    /// (`yyyy-mm-dd hh:mm:ss`, UTC).
    case dateTime(Int64)
    /// A day, milliseconds since 1970 UTC at 00:00: written as a date cell `yyyy-mm-dd`.
    case date(Int64)
    case empty
}

/// A column chart over one table of the same sheet: categories from one column, one series per value
/// column. Categories written as dates (`.date`) make a date axis: days are spaced by time, a day missing
/// from the table is a gap (Excel and LibreOffice choose a date axis for date categories).
public struct ReportChart: Sendable {
    /// Where the chart goes: right of the widest table.
    public enum Placement: Sendable, Equatable {
        /// Charts one below another from the top of the sheet.
        case stacked
        /// At the first row of its table.
        case besideTable
    }

    public var title: String
    /// Index of the table in `ReportSheet.tables`.
    public var tableIndex: Int
    public var categoryColumn: Int
    /// (name, column) of each series.
    public var series: [(name: String, column: Int)]
    /// The number format of the category axis labels (`yyyy-mm-dd` for days), or nil for General.
    public var categoryFormat: String?
    /// The values are `.money` of this currency: the value axis shows them in its units.
    public var valueCurrency: String?
    /// Values may be negative (refunds): bars of one category overlap (one up, one down), the category
    /// labels sit below the plot, and the value axis is not held at 0.
    public var allowsNegative: Bool
    public var placement: Placement

    public init(title: String, tableIndex: Int, categoryColumn: Int, valueColumn: Int, seriesName: String, categoryFormat: String? = nil) {
        self.init(
            title: title, tableIndex: tableIndex, categoryColumn: categoryColumn, series: [(seriesName, valueColumn)],
            categoryFormat: categoryFormat)
    }

    public init(
        title: String, tableIndex: Int, categoryColumn: Int, series: [(name: String, column: Int)], categoryFormat: String? = nil,
        valueCurrency: String? = nil, allowsNegative: Bool = false, placement: Placement = .stacked
    ) {
        self.title = title
        self.tableIndex = tableIndex
        self.categoryColumn = categoryColumn
        self.series = series
        self.categoryFormat = categoryFormat
        self.valueCurrency = valueCurrency
        self.allowsNegative = allowsNegative
        self.placement = placement
    }
}
