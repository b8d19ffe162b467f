/// Where a table lands on its sheet (zero-based rows).
struct Placement: Equatable {
    var titleRow: Int?
    var notesRow: Int?
    /// The header row; for a note (a title alone), its title row.
    var headerRow: Int
    var rowCount: Int
    var footerCount: Int
    var width: Int
    /// A title alone: no header, no rows.
    var isNote: Bool

    var firstDataRow: Int { headerRow + 1 }
    /// The table's first row (its title, notes or header).
    var firstRow: Int { titleRow ?? notesRow ?? headerRow }
    /// The row below the table.
    var endRow: Int { isNote ? headerRow + 1 : firstDataRow + rowCount + footerCount }
}

/// The layout of every sheet, computed before anything is written (rows go to disk in order, and a
/// formula may name a cell of a table further down or on another sheet).
///
/// Tables go one below the other from row 0, one blank row between them: a title row if the table has
/// one, its notes row if it has notes, its header row, its data rows, its footer rows.
struct WorkbookLayout {
    let sheets: [String: [Placement]]

    init(_ workbook: ReportWorkbook) {
        var sheets: [String: [Placement]] = [:]
        for sheet in workbook.sheets where sheets[sheet.name] == nil { sheets[sheet.name] = Self.place(sheet.tables) }
        self.sheets = sheets
    }

    static func place(_ tables: [ReportTable]) -> [Placement] {
        var placements: [Placement] = []
        var row = 0
        for (index, table) in tables.enumerated() {
            if index > 0 { row += 1 }
            let titleRow = table.title == nil ? nil : row
            if table.title != nil { row += 1 }
            if table.header.isEmpty && table.title != nil && table.rows.count == 0 && table.footer.isEmpty {
                placements.append(
                    Placement(titleRow: titleRow, headerRow: row - 1, rowCount: 0, footerCount: 0, width: 0, isNote: true))
                continue
            }
            let notesRow = table.notes.isEmpty ? nil : row
            if !table.notes.isEmpty { row += 1 }
            let placement = Placement(
                titleRow: titleRow, notesRow: notesRow, headerRow: row, rowCount: table.rows.count, footerCount: table.footer.count,
                width: table.header.count, isNote: false)
            placements.append(placement)
            row = placement.endRow
        }
        return placements
    }

    /// Why a reference cannot be written.
    struct Unresolved: Error { let message: String }

    /// The formula's text, each reference an absolute address (`$D$3:$D$9`, `'Bridge vs Sales'!$F$3`).
    /// - Parameters: sheet, table, row: where the formula is (what a reference without them means); `row` is
    ///   the sheet's row, from 0.
    func text(of formula: ReportFormula, sheet: String, table: Int, row: Int) throws -> String {
        try formula.parts.map {
            switch $0 {
            case .text(let text): return text
            case .reference(let reference): return try address(of: reference, sheet: sheet, table: table, row: row)
            }
        }.joined()
    }

    func address(of reference: ReportReference, sheet: String, table: Int, row: Int) throws -> String {
        let sheetName = reference.sheet ?? sheet
        guard let placements = sheets[sheetName] else { throw Unresolved(message: "no sheet '\(sheetName)' for \(reference)") }
        let index = reference.table ?? table
        guard placements.indices.contains(index), !placements[index].isNote else {
            throw Unresolved(message: "sheet '\(sheetName)' has no table \(index) for \(reference)")
        }
        let placement = placements[index]
        guard reference.column >= 0, reference.column < placement.width else {
            throw Unresolved(message: "\(reference): table \(index) of '\(sheetName)' has \(placement.width) columns")
        }
        let column = "$" + XLSXWriter.columnName(reference.column)
        let cells: String
        switch reference.rows {
        case .row(let row):
            guard row >= 0, row < placement.rowCount + placement.footerCount else {
                throw Unresolved(message: "\(reference): table \(index) of '\(sheetName)' has no row \(row)")
            }
            cells = "\(column)$\(placement.firstDataRow + row + 1)"
        case .same:
            guard reference.sheet == nil, reference.table == nil else {
                throw Unresolved(message: "\(reference): the formula's own row is on its own sheet and table")
            }
            cells = "\(column)$\(row + 1)"
        case .rows(let span):
            guard span.lowerBound >= 0, span.upperBound < placement.rowCount + placement.footerCount else {
                throw Unresolved(message: "\(reference): table \(index) of '\(sheetName)' has no rows \(span)")
            }
            cells = "\(column)$\(placement.firstDataRow + span.lowerBound + 1):\(column)$\(placement.firstDataRow + span.upperBound + 1)"
        case .data:
            guard placement.rowCount > 0 else {
                throw Unresolved(message: "\(reference): table \(index) of '\(sheetName)' has no data rows")
            }
            cells = "\(column)$\(placement.firstDataRow + 1):\(column)$\(placement.firstDataRow + placement.rowCount)"
        }
        return reference.sheet == nil ? cells : Self.quoted(sheetName) + "!" + cells
    }

    /// A sheet name as a formula names it: in single quotes, a quote doubled.
    static func quoted(_ name: String) -> String { "'" + name.replacingOccurrences(of: "'", with: "''") + "'" }
}
