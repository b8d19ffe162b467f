/// A spreadsheet formula whose cell references are named by table and row, not by address: the renderer
/// places the tables and writes the addresses (absolute, `$D$3:$D$9`, `'Bridge vs Sales'!$F$3`).
///
///     let total: ReportFormula = "=SUMIF(\(.column(1)),\(.cell(row: 4, column: 1)),\(.column(3)))"
public struct ReportFormula: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public enum Part: Sendable, Equatable {
        case text(String)
        case reference(ReportReference)
    }

    public var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }

    public init(stringLiteral value: String) { parts = [.text(value)] }

    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { if !literal.isEmpty { parts.append(.text(literal)) } }

        public mutating func appendInterpolation(_ reference: ReportReference) { parts.append(.reference(reference)) }

        /// Text as it is (a number, a quoted string: `CloseWorkbook.quoted`).
        public mutating func appendInterpolation(_ text: String) { appendLiteral(text) }
    }

    /// The formula with its references in braces (for messages and tests).
    public var description: String {
        parts.map {
            switch $0 {
            case .text(let text): return text
            case .reference(let r): return "{\(r)}"
            }
        }.joined()
    }
}

/// A cell or a column of cells of a table: of the formula's own table and sheet unless named.
public struct ReportReference: Sendable, Equatable, CustomStringConvertible {
    public enum Rows: Sendable, Equatable {
        /// One row: a data row from 0, then the footer rows.
        case row(Int)
        /// The formula's own row.
        case same
        /// Consecutive rows, numbered as `row`'s.
        case rows(ClosedRange<Int>)
        /// Every data row (not the footer).
        case data
    }

    /// The sheet's name; nil: the formula's sheet.
    public var sheet: String?
    /// The table's index in its sheet; nil: the formula's table.
    public var table: Int?
    public var rows: Rows
    public var column: Int

    public init(sheet: String? = nil, table: Int? = nil, rows: Rows, column: Int) {
        (self.sheet, self.table, self.rows, self.column) = (sheet, table, rows, column)
    }

    /// One cell.
    public static func cell(row: Int, column: Int, table: Int? = nil, sheet: String? = nil) -> ReportReference {
        ReportReference(sheet: sheet, table: table, rows: .row(row), column: column)
    }

    /// The cell of `column` in the formula's own row.
    public static func here(_ column: Int) -> ReportReference { ReportReference(rows: .same, column: column) }

    /// Rows `span` of one column.
    public static func cells(_ span: ClosedRange<Int>, column: Int, table: Int? = nil, sheet: String? = nil) -> ReportReference {
        ReportReference(sheet: sheet, table: table, rows: .rows(span), column: column)
    }

    /// The data rows of one column.
    public static func column(_ column: Int, table: Int? = nil, sheet: String? = nil) -> ReportReference {
        ReportReference(sheet: sheet, table: table, rows: .data, column: column)
    }

    public var description: String {
        let rows: String
        switch self.rows {
        case .row(let row): rows = "row \(row)"
        case .same: rows = "same row"
        case .rows(let span): rows = "rows \(span.lowerBound)...\(span.upperBound)"
        case .data: rows = "data"
        }
        return [sheet, table.map { "table \($0)" }, rows, "column \(column)"].compactMap { $0 }.joined(separator: " ")
    }
}
