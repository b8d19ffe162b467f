import CXLSXWriter
import IAPAuditModel

// MARK: - One sheet

struct SheetRenderer {
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

    /// A table's columns: its header's (rows have as many cells, or fewer).
    static func width(of table: ReportTable) -> Int { table.header.count }

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

        // Printed (or exported to PDF) landscape, one page wide.
        worksheet_set_landscape(worksheet)
        worksheet_fit_to_pages(worksheet, 1, 0)

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

        // A title alone (a note: no header, no rows) is one row.
        if width == 0 && table.title != nil && table.rows.count == 0 { return Placement(headerRow: row - 1, rowCount: 0, width: 0) }
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

        var written = 0
        var current = row
        try table.rows.forEach { cells in
            if cells.count > lengths.count { lengths.append(contentsOf: repeatElement(0, count: cells.count - lengths.count)) }
            if let wrapped = table.wrappedColumn, wrapped < cells.count, case .text(let text) = cells[wrapped] {
                try fitRow(current, to: text, column: wrapped)
            }
            for (column, cell) in cells.enumerated() {
                if let wrapped = table.wrappedColumn, case .text(let text) = cell {
                    let length = try writeText(
                        text, row: current, column: column, format: column == wrapped ? formats.wrapped : formats.top)
                    lengths[column] = max(lengths[column], column == wrapped ? min(length, ReportTable.wrapWidth) : length)
                    continue
                }
                let length = try writeCell(cell, row: current, column: column)
                lengths[column] = max(lengths[column], length)
            }
            current += 1
            written += 1
        }
        row = current
        return Placement(headerRow: headerRow, rowCount: written, width: width)
    }

    /// Makes `row` tall enough for `text` wrapped in `column` (written before the row's cells: rows go to
    /// disk as they are written), and that column at least `ReportTable.wrapWidth` characters wide, the
    /// width the lines are counted at. Spreadsheets do not grow a row for wrapped text on their own.
    mutating func fitRow(_ row: Int, to text: String, column: Int) throws {
        lengths[column] = max(lengths[column], ReportTable.wrapWidth)
        let lines = XLSXWriter.wrappedLines(text)
        guard lines > 1 else { return }
        try check(
            worksheet_set_row(worksheet, lxw_row_t(row), XLSXWriter.lineHeight * Double(lines), nil), "worksheet_set_row",
            row: row, column: column)
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
        case .dateTime(let milliseconds), .date(let milliseconds):
            let isDay = cell == .date(milliseconds)
            try check(
                worksheet_write_number(
                    worksheet, r, c, XLSXWriter.excelSerial(milliseconds: milliseconds), isDay ? formats.date : formats.dateTime),
                "worksheet_write_number", row: row, column: column)
            return isDay ? XLSXWriter.dateDisplayLength : XLSXWriter.dateTimeDisplayLength
        }
    }

    /// Always a string cell (worksheet_write_string never makes a formula, whatever the text
    /// starts with). Empty text writes nothing.
    /// Text longer than Excel's cell limit (32,767 characters) is cut, with a note saying so:
    /// the full text stays in audit.sqlite.
    func writeText(_ fullText: String, row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>? = nil) throws -> Int {
        if fullText.isEmpty { return 0 }
        let text = XLSXWriter.fittingExcel(fullText)
        // libxlsxwriter copies the text: no copy needs to outlive the call.
        try check(
            text.withCString { worksheet_write_string(worksheet, lxw_row_t(row), lxw_col_t(column), $0, format) },
            "worksheet_write_string", row: row, column: column)
        return XLSXWriter.displayLength(of: text)
    }
}
