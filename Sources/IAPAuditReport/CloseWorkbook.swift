import IAPAuditModel

/// The close workbook (`close-<period>.xlsx`, docs/close.md): Cover, KPIs, Revenue, Daily, Bridge vs Sales,
/// Bridge vs Financial, Payments, Refunds, Losses, Unpriced.
///
/// Apple calls its reports the source of record, and so does the close: the KPIs show Apple's numbers
/// first; the ledger's transaction amounts are labelled as what explains them (the bridges) and values the
/// findings. Amounts are `.money` cells (exact integer milliunits shown in currency units); totals are
/// formulas with their values, per currency, never across currencies.
public enum CloseWorkbook {
    /// The sheets, in order (the two bridges are there even without their report: they say so).
    package static let sheetNames = [
        "Cover", "KPIs", "Revenue", "Daily", BridgeSheet.name(.sales), BridgeSheet.name(.financial), "Payments", "Refunds", "Losses",
        "Unpriced",
    ]

    package static func build(
        _ report: CloseReport, files: [FileSummary], parameters: [String: String], warnings: [RunWarning], priceRejections: [Rejection]
    ) -> ReportWorkbook {
        let revenue = DetailSheets.revenue(report)
        let bridges = [Bridge.Report.sales, .financial].map { kind in
            BridgeSheet(report.bridges.first { $0.report == kind }, kind: kind, report: report)
        }
        let losses = DetailSheets.losses(report)
        let sheets = [
            CoverSheet.build(report, files: files, parameters: parameters, warnings: warnings, priceRejections: priceRejections),
            KPISheet.build(report, revenue: revenue, bridges: bridges, losses: losses),
            revenue.sheet,
            DetailSheets.daily(report),
            bridges[0].sheet,
            bridges[1].sheet,
            PaymentsSheet.build(report),
            DetailSheets.refunds(report),
            losses.sheet,
            DetailSheets.unpriced(report),
        ]
        let p = report.period
        return ReportWorkbook(
            sheets: sheets, createdMs: p.startMs,
            footer: "iap-audit close \(p.label) (\(p.calendar), \(p.timeZone))")
    }

    // MARK: - Shared by the sheets

    /// An amount of `currency`, or nothing for the ledger's unpriced purchases (currency `—`).
    static func money(_ milliunits: Int64, _ currency: String) -> ReportCell {
        isCurrency(currency) ? .money(milliunits, currency: currency) : .empty
    }

    static func money(_ amount: Money?) -> ReportCell { amount.map { money($0.milliunits, $0.currency) } ?? .empty }

    /// Whether `currency` is a currency (not `—`, the ledger's purchases without a price).
    static func isCurrency(_ currency: String) -> Bool { currency.count == 3 && currency.allSatisfy { $0.isLetter } }

    /// A day (in the period's time zone) as a date cell.
    static func day(_ date: CalendarDate) -> ReportCell { .date(date.dayNumber * 86_400_000) }

    /// A string as a formula writes it: in double quotes, a quote doubled.
    static func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The number a cell holds (a formula's value), as a sum over it counts it: text and blanks are 0.
    static func value(_ cell: ReportCell) -> Int64 {
        switch cell {
        case .integer(let value), .money(let value, _): return value
        case .formula(_, let cached): return value(cached)
        default: return 0
        }
    }

    static func text(_ cell: ReportCell) -> String? {
        if case .text(let text) = cell { return text }
        return nil
    }

    /// Σ column `sum` over the rows whose `criteria` columns hold the texts given: what SUMIF/SUMIFS computes.
    static func sum(_ rows: [[ReportCell]], _ sum: Int, where criteria: [(column: Int, text: String)]) -> Int64 {
        rows.filter { row in criteria.allSatisfy { $0.column < row.count && text(row[$0.column]) == $0.text } }
            .reduce(0) { $0 + (sum < $1.count ? value($1[sum]) : 0) }
    }

    /// The rows matching `criteria` (what COUNTIFS counts).
    static func count(_ rows: [[ReportCell]], where criteria: [(column: Int, text: String)]) -> Int64 {
        Int64(rows.filter { row in criteria.allSatisfy { $0.column < row.count && text(row[$0.column]) == $0.text } }.count)
    }

    /// One footer row per currency of `rows` (sorted): `Total` in `labelColumn`, the currency in
    /// `currencyColumn`, and in each of `sums` a SUMIF over the rows of that currency with its value. A
    /// column of `amounts` sums to an amount; the others (units, counts) to integers.
    static func currencyTotals(
        _ rows: [[ReportCell]], width: Int, labelColumn: Int = 0, currencyColumn: Int, sums: [Int], amounts: Set<Int>
    ) -> [[ReportCell]] {
        // A currency with nothing to total (the unpriced `—` where only amounts are summed) gets no row.
        let currencies = Set(rows.compactMap { currencyColumn < $0.count ? text($0[currencyColumn]) : nil }).sorted().filter { c in
            sums.contains { !amounts.contains($0) || isCurrency(c) }
        }
        return currencies.enumerated().map { offset, currency in
            var cells = [ReportCell](repeating: .empty, count: width)
            cells[labelColumn] = .text("Total")
            cells[currencyColumn] = .text(currency)
            let criterion = ReportReference.cell(row: rows.count + offset, column: currencyColumn)
            for column in sums where !amounts.contains(column) || isCurrency(currency) {
                let total = sum(rows, column, where: [(currencyColumn, currency)])
                cells[column] = .formula(
                    "=SUMIF(\(.column(currencyColumn)),\(criterion),\(.column(column)))",
                    cached: amounts.contains(column) ? .money(total, currency: currency) : .integer(total))
            }
            return cells
        }
    }
}

extension Bridge.Report {
    /// What Apple's number is on this report.
    var appleMeasure: String {
        switch self {
        case .sales: return "Summary Sales: units × Customer Price"
        case .financial: return "Financial: Quantity, Extended Partner Share (proceeds)"
        }
    }
}
