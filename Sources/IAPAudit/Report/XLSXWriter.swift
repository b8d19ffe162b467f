import CXLSXWriter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Renders a `ReportWorkbook` (plain data) into an .xlsx file with libxlsxwriter.
///
/// This is the only place in the project that talks to libxlsxwriter.
///
/// Layout of each sheet: tables one below the other from row 0, one blank row between them;
/// a table with a title gets a bold title row above its bold, bordered, filled header row.
/// The sheet's first primary table gets frozen panes below its header and an autofilter
/// over its header and data rows. Charts are column charts placed to the right of the tables.
public enum XLSXWriter {
    /// Excel's limits.
    static let maxRows = 1_048_576
    static let maxColumns = 16_384
    /// Displayed length used for the column width of `.dateTime` / `.date` cells.
    static let dateTimeDisplayLength = 19
    static let dateDisplayLength = 10
    static let minColumnWidth = 8
    static let maxColumnWidth = 80
    /// Rows reserved per chart when several charts are stacked (a default chart is 288 px
    /// high, about 14.4 default rows).
    static let rowsPerChart = 16

    /// Writes `workbook` to `path` (overwriting). Throws `XLSXError` (with the libxlsxwriter
    /// error text and the sheet/cell) on failure, e.g. an unwritable path.
    public static func write(_ workbook: ReportWorkbook, to path: String) throws {
        // Every C string handed to libxlsxwriter stays alive until after workbook_close.
        let strings = CStringPool()
        defer { strings.freeAll() }

        var options = lxw_workbook_options()
        options.constant_memory = 0
        options.tmpdir = nil
        options.use_zip64 = 0

        guard let book = workbook_new_opt(try strings.make(path, path: path), &options) else {
            throw XLSXError(
                operation: "workbook_new_opt", message: "could not create the workbook (out of memory?)",
                path: path)
        }
        // If anything throws before workbook_close, free the workbook without writing a file.
        var closed = false
        defer { if !closed { lxw_workbook_free(book) } }

        let formats = try Formats(book: book, strings: strings, path: path)

        for sheet in workbook.sheets {
            var renderer = try SheetRenderer(
                book: book, sheet: sheet, formats: formats, strings: strings, path: path)
            try renderer.render()
        }

        errno = 0
        let status = workbook_close(book)
        let systemError = errno
        closed = true
        if status != LXW_NO_ERROR {
            var message = errorText(status)
            if status == LXW_ERROR_CREATING_XLSX_FILE, systemError != 0, let text = strerror(systemError) {
                message += ": " + String(cString: text)
            }
            throw XLSXError(
                operation: "workbook_close", message: message, path: path, code: Int(status.rawValue))
        }
    }

    // MARK: - Helpers shared with the renderer

    static func errorText(_ error: lxw_error) -> String {
        guard let text = lxw_strerror(error) else { return "libxlsxwriter error \(error.rawValue)" }
        return String(cString: text)
    }

    /// "A", "B", …, "Z", "AA", … for a zero-based column index.
    static func columnName(_ column: Int) -> String {
        var n = column + 1
        var letters: [Character] = []
        while n > 0 {
            let remainder = (n - 1) % 26
            letters.append(Character(Unicode.Scalar(UInt8(65 + remainder))))
            n = (n - 1) / 26
        }
        return String(letters.reversed())
    }

    /// A1 reference for zero-based row and column.
    static func cellName(row: Int, column: Int) -> String {
        "\(columnName(column))\(row + 1)"
    }

    /// Excel serial date number (1900 date system, UTC) for milliseconds since 1970.
    static func excelSerial(milliseconds: Int64) -> Double {
        Double(milliseconds) / 86_400_000 + 25569
    }

    /// The displayed length of a text cell: its longest line, in characters.
    static func displayLength(of text: String) -> Int {
        var longest = 0
        var current = 0
        for character in text {
            if character.isNewline {
                longest = max(longest, current)
                current = 0
            } else {
                current += 1
            }
        }
        return max(longest, current)
    }

    /// The displayed length of a number in Excel's General format (approximately).
    static func displayLength(of number: Double) -> Int {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number)).count
        }
        return String(number).count
    }

    static func columnWidth(forDisplayLength length: Int) -> Double {
        Double(min(max(length + 2, minColumnWidth), maxColumnWidth))
    }

    /// libxlsxwriter reads a chart title / series name starting with `=` as a cell reference
    /// formula; keep such text literal by prefixing a space.
    static func literalChartText(_ text: String) -> String {
        text.hasPrefix("=") ? " " + text : text
    }
}

// MARK: - C string lifetime

/// Owns `strdup`ed copies of every string passed to libxlsxwriter; freed after `workbook_close`.
private final class CStringPool {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func make(_ string: String, path: String) throws -> UnsafeMutablePointer<CChar> {
        guard let pointer = strdup(string) else {
            throw XLSXError(operation: "strdup", message: "out of memory", path: path)
        }
        pointers.append(pointer)
        return pointer
    }

    func freeAll() {
        for pointer in pointers { free(pointer) }
        pointers.removeAll()
    }
}

// MARK: - Formats

private struct Formats {
    let title: UnsafeMutablePointer<lxw_format>
    let header: UnsafeMutablePointer<lxw_format>
    let dateTime: UnsafeMutablePointer<lxw_format>
    let date: UnsafeMutablePointer<lxw_format>

    init(book: UnsafeMutablePointer<lxw_workbook>, strings: CStringPool, path: String) throws {
        func add() throws -> UnsafeMutablePointer<lxw_format> {
            guard let format = workbook_add_format(book) else {
                throw XLSXError(
                    operation: "workbook_add_format", message: "could not create a format (out of memory?)",
                    path: path)
            }
            return format
        }
        title = try add()
        format_set_bold(title)
        format_set_font_size(title, 12)

        header = try add()
        format_set_bold(header)
        format_set_bottom(header, UInt8(LXW_BORDER_THIN.rawValue))
        format_set_pattern(header, UInt8(LXW_PATTERN_SOLID.rawValue))
        format_set_bg_color(header, 0xD9E1F2)

        dateTime = try add()
        format_set_num_format(dateTime, try strings.make("yyyy-mm-dd hh:mm:ss", path: path))

        date = try add()
        format_set_num_format(date, try strings.make("yyyy-mm-dd", path: path))
    }
}

// MARK: - One sheet

private struct SheetRenderer {
    let book: UnsafeMutablePointer<lxw_workbook>
    let sheet: ReportSheet
    let formats: Formats
    let strings: CStringPool
    let path: String
    let worksheet: UnsafeMutablePointer<lxw_worksheet>

    /// Max displayed length per column (header and data cells; title rows excepted).
    var lengths: [Int] = []

    /// Where each table landed: its header row, its data row count and its column count.
    struct Placement {
        var headerRow: Int
        var rowCount: Int
        var width: Int
        var firstDataRow: Int { headerRow + 1 }
    }

    init(
        book: UnsafeMutablePointer<lxw_workbook>, sheet: ReportSheet, formats: Formats,
        strings: CStringPool, path: String
    ) throws {
        self.book = book
        self.sheet = sheet
        self.formats = formats
        self.strings = strings
        self.path = path

        let name = try strings.make(sheet.name, path: path)
        let validation = workbook_validate_sheet_name(book, name)
        if validation != LXW_NO_ERROR {
            throw XLSXError(
                operation: "workbook_add_worksheet",
                message: "invalid worksheet name: \(XLSXWriter.errorText(validation))",
                path: path, sheet: sheet.name, code: Int(validation.rawValue))
        }
        guard let worksheet = workbook_add_worksheet(book, name) else {
            throw XLSXError(
                operation: "workbook_add_worksheet",
                message: "libxlsxwriter refused the worksheet name (invalid or already used)",
                path: path, sheet: sheet.name)
        }
        self.worksheet = worksheet
    }

    func fail(_ operation: String, _ status: lxw_error, row: Int? = nil, column: Int? = nil) -> XLSXError {
        XLSXError(
            operation: operation, message: XLSXWriter.errorText(status), path: path, sheet: sheet.name,
            cell: row.flatMap { r in column.map { XLSXWriter.cellName(row: r, column: $0) } },
            code: Int(status.rawValue))
    }

    func invalid(_ message: String, row: Int? = nil, column: Int? = nil) -> XLSXError {
        XLSXError(
            operation: "validate", message: message, path: path, sheet: sheet.name,
            cell: row.flatMap { r in column.map { XLSXWriter.cellName(row: r, column: $0) } })
    }

    func check(_ status: lxw_error, _ operation: String, row: Int? = nil, column: Int? = nil) throws {
        if status != LXW_NO_ERROR { throw fail(operation, status, row: row, column: column) }
    }

    static func width(of table: ReportTable) -> Int {
        table.rows.reduce(table.header.count) { max($0, $1.count) }
    }

    mutating func render() throws {
        // Check the layout fits in a worksheet before converting indices to C types.
        var totalRows = 0
        for (index, table) in sheet.tables.enumerated() {
            if index > 0 { totalRows += 1 }
            totalRows += (table.title == nil ? 0 : 1) + 1 + table.rows.count
            let width = Self.width(of: table)
            if width > XLSXWriter.maxColumns {
                throw invalid("table \(index) has \(width) columns; a worksheet holds at most \(XLSXWriter.maxColumns)")
            }
        }
        if totalRows > XLSXWriter.maxRows {
            throw invalid("the tables need \(totalRows) rows; a worksheet holds at most \(XLSXWriter.maxRows)")
        }

        var placements: [Placement] = []
        var row = 0
        var primaryDone = false
        for (index, table) in sheet.tables.enumerated() {
            if index > 0 { row += 1 }  // one blank row between tables
            let placement = try writeTable(table, at: &row)
            placements.append(placement)

            if table.isPrimary, !primaryDone {
                primaryDone = true
                worksheet_freeze_panes(worksheet, lxw_row_t(placement.headerRow + 1), 0)
                if placement.width > 0 {
                    try check(
                        worksheet_autofilter(
                            worksheet, lxw_row_t(placement.headerRow), 0,
                            lxw_row_t(placement.headerRow + placement.rowCount),
                            lxw_col_t(placement.width - 1)),
                        "worksheet_autofilter", row: placement.headerRow, column: 0)
                }
            }
        }

        for (column, length) in lengths.enumerated() {
            try check(
                worksheet_set_column(
                    worksheet, lxw_col_t(column), lxw_col_t(column),
                    XLSXWriter.columnWidth(forDisplayLength: length), nil),
                "worksheet_set_column", row: 0, column: column)
        }

        let widest = placements.map(\.width).max() ?? 0
        let chartColumn = min(widest + 1, XLSXWriter.maxColumns - 1)
        var chartRow = 0
        for chart in sheet.charts {
            if try addChart(chart, placements: placements, row: chartRow, column: chartColumn) {
                chartRow += XLSXWriter.rowsPerChart
            }
        }
    }

    /// Writes the title row (if any), header row and data rows starting at `row`; leaves `row`
    /// just below the last data row.
    mutating func writeTable(_ table: ReportTable, at row: inout Int) throws -> Placement {
        let width = Self.width(of: table)
        if lengths.count < width { lengths.append(contentsOf: repeatElement(0, count: width - lengths.count)) }

        if let title = table.title {
            if !title.isEmpty {
                try check(
                    worksheet_write_string(
                        worksheet, lxw_row_t(row), 0, try strings.make(title, path: path), formats.title),
                    "worksheet_write_string", row: row, column: 0)
            }
            row += 1
        }

        let headerRow = row
        for column in 0..<width {
            let text = column < table.header.count ? table.header[column] : ""
            if text.isEmpty {
                try check(
                    worksheet_write_blank(worksheet, lxw_row_t(row), lxw_col_t(column), formats.header),
                    "worksheet_write_blank", row: row, column: column)
            } else {
                try check(
                    worksheet_write_string(
                        worksheet, lxw_row_t(row), lxw_col_t(column), try strings.make(text, path: path),
                        formats.header),
                    "worksheet_write_string", row: row, column: column)
                lengths[column] = max(lengths[column], XLSXWriter.displayLength(of: text))
            }
        }
        row += 1

        for cells in table.rows {
            for (column, cell) in cells.enumerated() {
                let length = try writeCell(cell, row: row, column: column)
                lengths[column] = max(lengths[column], length)
            }
            row += 1
        }
        return Placement(headerRow: headerRow, rowCount: table.rows.count, width: width)
    }

    /// Writes one data cell; returns its displayed length (0 when nothing is written).
    func writeCell(_ cell: ReportCell, row: Int, column: Int) throws -> Int {
        let r = lxw_row_t(row)
        let c = lxw_col_t(column)
        switch cell {
        case .empty:
            return 0
        case .text(let text):
            return try writeText(text, row: row, column: column)
        case .integer(let value):
            try check(
                worksheet_write_number(worksheet, r, c, Double(value), nil),
                "worksheet_write_number", row: row, column: column)
            return String(value).count
        case .number(let value):
            guard value.isFinite else {
                // Excel has no NaN/infinity; write them as text rather than a corrupt number.
                return try writeText(
                    value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"),
                    row: row, column: column)
            }
            try check(
                worksheet_write_number(worksheet, r, c, value, nil),
                "worksheet_write_number", row: row, column: column)
            return XLSXWriter.displayLength(of: value)
        case .dateTime(let milliseconds):
            try check(
                worksheet_write_number(
                    worksheet, r, c, XLSXWriter.excelSerial(milliseconds: milliseconds), formats.dateTime),
                "worksheet_write_number", row: row, column: column)
            return XLSXWriter.dateTimeDisplayLength
        case .date(let milliseconds):
            try check(
                worksheet_write_number(
                    worksheet, r, c, XLSXWriter.excelSerial(milliseconds: milliseconds), formats.date),
                "worksheet_write_number", row: row, column: column)
            return XLSXWriter.dateDisplayLength
        }
    }

    /// Always a string cell (worksheet_write_string never makes a formula, whatever the text
    /// starts with). Empty text writes nothing.
    /// Text longer than Excel's cell limit (32,767 characters) is cut, with a note saying so:
    /// the full text stays in audit.sqlite.
    func writeText(_ fullText: String, row: Int, column: Int) throws -> Int {
        if fullText.isEmpty { return 0 }
        let text = XLSXWriter.fittingExcel(fullText)
        try check(
            worksheet_write_string(
                worksheet, lxw_row_t(row), lxw_col_t(column), try strings.make(text, path: path), nil),
            "worksheet_write_string", row: row, column: column)
        return XLSXWriter.displayLength(of: text)
    }

    /// Adds a column chart; returns false when it was skipped (its table has no data rows).
    func addChart(_ chart: ReportChart, placements: [Placement], row: Int, column: Int) throws -> Bool {
        guard placements.indices.contains(chart.tableIndex) else {
            throw invalid("chart '\(chart.title)' refers to table \(chart.tableIndex), but the sheet has \(placements.count) tables")
        }
        let placement = placements[chart.tableIndex]
        for (role, index) in [("category", chart.categoryColumn), ("value", chart.valueColumn)] {
            guard index >= 0, index < placement.width else {
                throw invalid(
                    "chart '\(chart.title)': \(role) column \(index) is outside table \(chart.tableIndex) (\(placement.width) columns)")
            }
        }
        if placement.rowCount == 0 { return false }

        guard let lxwChart = workbook_add_chart(book, UInt8(LXW_CHART_COLUMN.rawValue)) else {
            throw XLSXError(
                operation: "workbook_add_chart", message: "could not create the chart (out of memory?)",
                path: path, sheet: sheet.name)
        }
        guard let series = chart_add_series(lxwChart, nil, nil) else {
            throw XLSXError(
                operation: "chart_add_series", message: "could not add the chart series (out of memory?)",
                path: path, sheet: sheet.name)
        }
        // With the raw sheet name, libxlsxwriter builds the range formula itself and quotes
        // the name as needed (e.g. ='My ''Data'''!$A$2:$A$9).
        let sheetName = try strings.make(sheet.name, path: path)
        let firstRow = lxw_row_t(placement.firstDataRow)
        let lastRow = lxw_row_t(placement.firstDataRow + placement.rowCount - 1)
        chart_series_set_categories(
            series, sheetName, firstRow, lxw_col_t(chart.categoryColumn), lastRow, lxw_col_t(chart.categoryColumn))
        chart_series_set_values(
            series, sheetName, firstRow, lxw_col_t(chart.valueColumn), lastRow, lxw_col_t(chart.valueColumn))
        if !chart.seriesName.isEmpty {
            chart_series_set_name(
                series, try strings.make(XLSXWriter.literalChartText(chart.seriesName), path: path))
        }
        if !chart.title.isEmpty {
            chart_title_set_name(lxwChart, try strings.make(XLSXWriter.literalChartText(chart.title), path: path))
        }
        try check(
            worksheet_insert_chart(worksheet, lxw_row_t(row), lxw_col_t(column), lxwChart),
            "worksheet_insert_chart", row: row, column: column)
        return true
    }
}

extension XLSXWriter {
    /// Longest text a cell holds (Excel's limit, counted in characters as libxlsxwriter does).
    static let maxCellCharacters = 32_767

    static func fittingExcel(_ text: String) -> String {
        let count = text.unicodeScalars.count
        guard count > maxCellCharacters else { return text }
        let note = " … [cut: \(count) characters in all; the full text is in audit.sqlite]"
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maxCellCharacters - note.unicodeScalars.count))) + note
    }
}
