import CXLSXWriter
import IAPAuditModel

/// Where a cell sits, for its look.
enum CellRole {
    /// A data cell.
    case plain
    /// A data cell of a table with a wrapped column: at the top of its (taller) row.
    case top
    /// The wrapped column's cell.
    case wrapped
    /// A footer (totals) cell: bold, a line above.
    case footer

    var style: CellStyle {
        switch self {
        case .plain: return CellStyle()
        case .top: return CellStyle(alignTop: true)
        case .wrapped: return CellStyle(wrap: true, alignTop: true)
        case .footer: return CellStyle(bold: true, topBorder: true)
        }
    }
}

extension ReportCell {
    /// A number, an amount, a date or a formula: shown on the right of its cell.
    var isNumber: Bool {
        switch self {
        case .integer, .money, .formula, .number, .date, .dateTime: return true
        case .text, .strong, .empty: return false
        }
    }
}

extension Formats {
    /// The format of `style`: one made at the start when it is one of those (as before the cache), else the
    /// cache's.
    func format(_ style: CellStyle) throws -> UnsafeMutablePointer<lxw_format>? {
        switch style {
        case CellStyle(alignTop: true): return top
        case CellStyle(wrap: true, alignTop: true): return wrapped
        case CellStyle(numberFormat: "yyyy-mm-dd"): return date
        case CellStyle(numberFormat: "yyyy-mm-dd hh:mm:ss"): return dateTime
        default: return try styles.format(style)
        }
    }
}

// MARK: - Cells of a sheet

extension SheetRenderer {
    /// Writes one cell of table `table`; returns its displayed length (0 when nothing is written).
    /// - Parameter indent: text starts a character away from the left (right of a column of numbers).
    func writeCell(_ cell: ReportCell, row: Int, column: Int, table: Int, role: CellRole, indent: Bool = false) throws -> Int {
        let r = lxw_row_t(row)
        let c = lxw_col_t(column)
        var style = role.style
        let cell = cell == .text("") || cell == .strong("") ? .empty : cell
        switch cell {
        case .empty:
            // A footer's line runs under every column.
            if role == .footer {
                try check(
                    worksheet_write_blank(worksheet, r, c, try formats.format(style)), "worksheet_write_blank", row: row, column: column)
            }
            return 0
        case .text(let text):
            style.indent = indent ? 1 : 0
            return try writeText(text, row: row, column: column, format: try formats.format(style)) + style.indent
        case .strong(let text):
            (style.bold, style.indent) = (true, indent ? 1 : 0)
            return try writeText(text, row: row, column: column, format: try formats.format(style)) + style.indent
        case .integer(let value):
            try check(
                worksheet_write_number(worksheet, r, c, try exact(value, row: row, column: column), try formats.format(style)),
                "worksheet_write_number", row: row, column: column)
            return String(value).count
        case .money(let milliunits, let currency):
            let decimals = XLSXMoney.decimals(milliunits, currency: currency)
            style.numberFormat = XLSXMoney.numberFormat(decimals: decimals)
            try check(
                worksheet_write_number(worksheet, r, c, try exact(milliunits, row: row, column: column), try formats.format(style)),
                "worksheet_write_number", row: row, column: column)
            return XLSXMoney.displayLength(milliunits, decimals: decimals)
        case .formula(let formula, let cached):
            return try writeFormula(formula, cached: cached, row: row, column: column, table: table, style: style)
        case .number(let value):
            guard value.isFinite else {
                // Excel has no NaN/infinity; write them as text rather than a corrupt number.
                return try writeText(
                    value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"), row: row, column: column,
                    format: try formats.format(style))
            }
            try check(
                worksheet_write_number(worksheet, r, c, value, try formats.format(style)), "worksheet_write_number", row: row,
                column: column)
            return XLSXWriter.displayLength(of: value)
        case .dateTime(let milliseconds), .date(let milliseconds):
            let isDay = cell == .date(milliseconds)
            style.numberFormat = isDay ? "yyyy-mm-dd" : "yyyy-mm-dd hh:mm:ss"
            try check(
                worksheet_write_number(worksheet, r, c, XLSXWriter.excelSerial(milliseconds: milliseconds), try formats.format(style)),
                "worksheet_write_number", row: row, column: column)
            return isDay ? XLSXWriter.dateDisplayLength : XLSXWriter.dateTimeDisplayLength
        }
    }

    /// A formula with its value beside it (`worksheet_write_formula_num`): a reader that does not recalculate
    /// shows the value; the cell takes the format of the value (`.integer` or `.money`).
    func writeFormula(_ formula: ReportFormula, cached: ReportCell, row: Int, column: Int, table: Int, style: CellStyle) throws -> Int {
        var style = style
        let value: Int64
        let length: Int
        switch cached {
        case .integer(let integer):
            (value, length) = (integer, String(integer).count)
        case .money(let milliunits, let currency):
            let decimals = XLSXMoney.decimals(milliunits, currency: currency)
            style.numberFormat = XLSXMoney.numberFormat(decimals: decimals)
            (value, length) = (milliunits, XLSXMoney.displayLength(milliunits, decimals: decimals))
        default:
            throw invalid("formula \(formula): its value must be an integer or an amount, not \(cached)", row: row, column: column)
        }
        let text: String
        do {
            text = try layout.text(of: formula, sheet: sheet.name, table: table, row: row)
        } catch let error as WorkbookLayout.Unresolved {
            throw invalid("formula \(formula): \(error.message)", row: row, column: column)
        }
        try check(
            worksheet_write_formula_num(
                worksheet, lxw_row_t(row), lxw_col_t(column), try strings.make(text, path: path), try formats.format(style),
                try exact(value, row: row, column: column)),
            "worksheet_write_formula_num", row: row, column: column)
        return length
    }

    /// `value` as the C double libxlsxwriter takes, exactly (`XLSXMoney.cellValue`), or an error.
    func exact(_ value: Int64, row: Int, column: Int) throws -> Double {
        guard let double = XLSXMoney.cellValue(value) else {
            throw invalid("\(value) is too large to be written exactly (at most 2^53 in magnitude)", row: row, column: column)
        }
        return double
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
