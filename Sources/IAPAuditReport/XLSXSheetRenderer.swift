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
    /// Every sheet's layout (formulas name cells of any sheet).
    let layout: WorkbookLayout
    /// Where this sheet's tables go.
    let placements: [Placement]
    /// The workbook's footer text (`ReportWorkbook.footer`).
    let footer: String?

    /// Max displayed length per column (header and data cells; title rows excepted).
    var lengths: [Int] = []

    init(
        book: UnsafeMutablePointer<lxw_workbook>, sheet: ReportSheet, formats: Formats,
        strings: CStringPool, path: String, layout: WorkbookLayout, footer: String? = nil
    ) throws {
        self.book = book
        self.sheet = sheet
        self.formats = formats
        self.strings = strings
        self.path = path
        self.layout = layout
        self.placements = WorkbookLayout.place(sheet.tables)
        self.footer = footer

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
        for (index, table) in sheet.tables.enumerated() where Self.width(of: table) > XLSXWriter.maxColumns {
            throw invalid("table \(index) has \(Self.width(of: table)) columns; a worksheet holds at most \(XLSXWriter.maxColumns)")
        }
        let totalRows = placements.last?.endRow ?? 0
        if totalRows > XLSXWriter.maxRows {
            throw invalid("the tables need \(totalRows) rows; a worksheet holds at most \(XLSXWriter.maxRows)")
        }
        try setUpPrinting()

        // Before any row is written: with rows going to disk as they are written, libxlsxwriter refuses an
        // autofilter over rows already flushed.
        if let index = sheet.tables.firstIndex(where: \.isPrimary) { try setUpPrimary(placements[index]) }
        for index in sheet.tables.indices { try writeTable(index) }

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
            let row =
                chart.placement == .besideTable && placements.indices.contains(chart.tableIndex)
                ? max(chartRow, placements[chart.tableIndex].firstRow) : chartRow
            if try addChart(chart, placements: placements, row: row, column: chartColumn) {
                chartRow = row + XLSXWriter.rowsPerChart
            }
        }
    }

    /// The primary table's header frozen, an autofilter over its header and data rows, its notes and header
    /// printed on top of every page.
    func setUpPrimary(_ placement: Placement) throws {
        worksheet_freeze_panes(worksheet, lxw_row_t(placement.headerRow + 1), 0)
        guard placement.width > 0 else { return }
        try check(
            worksheet_autofilter(
                worksheet, lxw_row_t(placement.headerRow), 0, lxw_row_t(placement.headerRow + placement.rowCount),
                lxw_col_t(placement.width - 1)),
            "worksheet_autofilter", row: placement.headerRow, column: 0)
        try check(
            worksheet_repeat_rows(worksheet, lxw_row_t(placement.notesRow ?? placement.headerRow), lxw_row_t(placement.headerRow)),
            "worksheet_repeat_rows", row: placement.headerRow, column: 0)
    }

    /// Landscape, one page wide, and the workbook's footer on the left, the sheet's name and the page number
    /// on the right.
    func setUpPrinting() throws {
        worksheet_set_landscape(worksheet)
        worksheet_fit_to_pages(worksheet, 1, 0)
        guard let footer = footer else { return }
        // `&` starts a code in a header or footer: a literal one is doubled.
        let text = "&L" + footer.replacingOccurrences(of: "&", with: "&&") + "&R&A, page &P of &N"
        try check(worksheet_set_footer(worksheet, try strings.make(text, path: path)), "worksheet_set_footer")
    }

    /// Writes table `index` where the layout placed it: its title, notes, header, data and footer rows.
    mutating func writeTable(_ index: Int) throws {
        let table = sheet.tables[index]
        let placement = placements[index]
        let width = Self.width(of: table)
        if lengths.count < width { lengths.append(contentsOf: repeatElement(0, count: width - lengths.count)) }

        if let row = placement.titleRow, let title = table.title, !title.isEmpty {
            try check(
                worksheet_write_string(worksheet, lxw_row_t(row), 0, try strings.make(title, path: path), formats.title),
                "worksheet_write_string", row: row, column: 0)
        }
        if placement.isNote { return }
        if let row = placement.notesRow { try writeNotes(table.notes, row: row, width: width) }

        let headerRow = placement.headerRow
        // A column whose first filled cell (of the first rows) is a number has its header on the right, above
        // them; a column of text right of it starts a little away from them.
        let first = try table.rows.prefix(20)
        let numeric = (0..<width).map { column in
            first.lazy.compactMap { column < $0.count && $0[column] != .empty ? $0[column] : nil }.first?.isNumber == true
        }
        let indented = (0..<width).map { $0 > 0 && numeric[$0 - 1] && !numeric[$0] }
        for column in 0..<width {
            let header = numeric[column] ? formats.headerRight : indented[column] ? formats.headerIndented : formats.header
            let text = table.header[column]
            if text.isEmpty {
                try check(
                    worksheet_write_blank(worksheet, lxw_row_t(headerRow), lxw_col_t(column), header),
                    "worksheet_write_blank", row: headerRow, column: column)
            } else {
                try check(
                    worksheet_write_string(
                        worksheet, lxw_row_t(headerRow), lxw_col_t(column), try strings.make(text, path: path), header),
                    "worksheet_write_string", row: headerRow, column: column)
                lengths[column] = max(lengths[column], XLSXWriter.displayLength(of: text))
            }
        }

        var current = placement.firstDataRow
        // Only a mutating call here: a non-mutating one (writeCell) made in this closure copied the renderer for
        // each cell (every reference it holds retained and released: a fifth of a large workbook's time).
        try table.rows.forEach { cells in
            try writeRow(cells, row: current, table: index, indented: indented)
            current += 1
        }
        let written = current - placement.firstDataRow
        if written != placement.rowCount {
            throw invalid("table \(index) gave \(written) rows, not the \(placement.rowCount) it announced", row: current, column: 0)
        }
        for cells in table.footer {
            for column in 0..<max(width, cells.count) {
                let length = try writeCell(
                    column < cells.count ? cells[column] : .empty, row: current, column: column, table: index, role: .footer)
                if column < lengths.count { lengths[column] = max(lengths[column], length) }
            }
            current += 1
        }
    }

    /// One data row of table `table` (`indented`: the columns of text right of a column of numbers).
    mutating func writeRow(_ cells: [ReportCell], row: Int, table index: Int, indented: [Bool]) throws {
        let table = sheet.tables[index]
        if cells.count > lengths.count { lengths.append(contentsOf: repeatElement(0, count: cells.count - lengths.count)) }
        if table.wrapsToWidths { return try writeWrappedToWidths(cells, row: row, table: index, indented: indented) }
        if let wrapped = table.wrappedColumn, wrapped < cells.count, case .text(let text) = cells[wrapped] {
            try fitRow(row, to: text, column: wrapped)
        }
        for (column, cell) in cells.enumerated() {
            let role: CellRole = table.wrappedColumn == nil ? .plain : column == table.wrappedColumn ? .wrapped : .top
            let indent = column < indented.count && indented[column]
            let length = try writeCell(cell, row: row, column: column, table: index, role: role, indent: indent)
            lengths[column] = max(lengths[column], role == .wrapped ? min(length, ReportTable.wrapWidth) : length)
        }
    }

    /// The notes row: each note wrapped in its column (widened to `ReportTable.noteWidth`), the row as tall as
    /// the longest note needs at that width.
    mutating func writeNotes(_ notes: [String], row: Int, width: Int) throws {
        let lines = notes.map { XLSXWriter.wrappedLines($0, width: ReportTable.noteWidth) }.max() ?? 1
        try check(
            worksheet_set_row(worksheet, lxw_row_t(row), XLSXWriter.noteLineHeight * Double(max(lines, 1)), nil), "worksheet_set_row",
            row: row, column: 0)
        let format = try formats.styles.format(CellStyle(italic: true, wrap: true, alignTop: true, fontSize: XLSXWriter.noteFontSize))
        for (column, note) in notes.enumerated() where column < width && !note.isEmpty {
            _ = try writeText(note, row: row, column: column, format: format)
            lengths[column] = max(lengths[column], ReportTable.noteWidth)
        }
    }

    /// A row of a `wrapsToWidths` table: its text wrapped in the columns as wide as they are (a column no table
    /// above has used takes its text's width), the row as tall as its longest text needs.
    mutating func writeWrappedToWidths(_ cells: [ReportCell], row: Int, table: Int, indented: [Bool]) throws {
        let known = lengths
        func characters(_ column: Int) -> Int { max(Int(XLSXWriter.columnWidth(forDisplayLength: known[column])) - 1, 4) }
        var lines = 1
        for (column, cell) in cells.enumerated() where known[column] > 0 {
            if case .text(let text) = cell { lines = max(lines, XLSXWriter.wrappedLines(text, width: characters(column))) }
        }
        if lines > 1 {
            try check(
                worksheet_set_row(worksheet, lxw_row_t(row), XLSXWriter.lineHeight * Double(lines), nil), "worksheet_set_row", row: row,
                column: 0)
        }
        for (column, cell) in cells.enumerated() {
            let isText = { if case .text = cell { return true } else { return false } }()
            let length = try writeCell(
                cell, row: row, column: column, table: table, role: isText ? .wrapped : .top,
                indent: column < indented.count && indented[column])
            if !isText || known[column] == 0 { lengths[column] = max(lengths[column], length) }
        }
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
}
