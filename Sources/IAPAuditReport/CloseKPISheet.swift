import IAPAuditModel

/// The KPIs sheet: one table per currency, never added across currencies. Apple's reports first (the
/// source of record), then the ledger's gross, refunds and net, the losses by kind, and the bridge from the
/// ledger to each of Apple's numbers: ledger + buckets + remainder = Apple. Each number is a formula over
/// the detail sheets (Revenue, Losses, the bridges), with its value.
enum KPISheet {
    static let label = 0, units = 1, amount = 2, from = 3

    static func build(_ report: CloseReport, revenue: DetailSheet, bridges: [BridgeSheet], losses: DetailSheet) -> ReportSheet {
        var tables = [
            ReportTable.note(
                "Close of \(report.period): per currency, Apple's reports (the source of record) beside the ledger's transaction amounts, "
                    + "which explain them")
        ]
        for totals in report.totals where CloseWorkbook.isCurrency(totals.currency) {
            var block = Block(currency: totals.currency)
            apple(&block, totals: totals, bridges: bridges)
            ledger(&block, revenue: revenue)
            lossRows(&block, totals: totals, losses: losses)
            for bridge in bridges where bridge.has(totals.currency) { walk(&block, bridge: bridge) }
            tables.append(
                ReportTable(
                    title: totals.currency, header: ["", "units", "amount (\(totals.currency))", "from"], rows: block.rows))
        }
        let unpriced = report.unpriced.count
        if unpriced > 0 {
            tables.append(.note("\(unpriced) purchase(s) of the period have no price: counted in units only (sheet Unpriced)."))
        }
        if report.totals.isEmpty { tables.append(.note("Nothing to report: no sale, refund or Apple report line in the period.")) }
        return ReportSheet(name: "KPIs", tables: tables)
    }

    /// The rows of one currency's table.
    struct Block {
        let currency: String
        var rows: [[ReportCell]] = []

        /// Adds a row; returns its index.
        @discardableResult
        mutating func add(_ label: ReportCell, units: ReportCell = .empty, amount: ReportCell = .empty, from: String = "") -> Int {
            rows.append([label, units, amount, from.isEmpty ? .empty : .text(from)])
            return rows.count - 1
        }

        mutating func heading(_ text: String) { add(.strong(text)) }

        func money(_ value: Int64) -> ReportCell { .money(value, currency: currency) }

        /// SUMIF over a detail table's rows of this currency: the formula and its value.
        func sumIf(
            sheet: String, table: Int, rows: [[ReportCell]], currencyColumn: Int, column: Int, amount: Bool
        ) -> ReportCell {
            let total = CloseWorkbook.sum(rows, column, where: [(currencyColumn, currency)])
            let criteria = ReportReference.column(currencyColumn, table: table, sheet: sheet)
            let values = ReportReference.column(column, table: table, sheet: sheet)
            return .formula(
                "=SUMIF(\(criteria),\(CloseWorkbook.quoted(currency)),\(values))", cached: amount ? money(total) : .integer(total))
        }
    }

    static func apple(_ block: inout Block, totals: CloseReport.Totals, bridges: [BridgeSheet]) {
        block.heading("Apple's reports: the source of record")
        for bridge in bridges {
            let label = bridge.kind == .sales ? "Summary Sales: customer price" : "Financial: proceeds (Extended Partner Share)"
            guard bridge.has(block.currency) else {
                block.add(
                    .text(label), from: bridge.bridge == nil ? "no report for the period among the inputs" : "no line in \(block.currency)")
                continue
            }
            block.add(
                .text(label),
                units: block.sumIf(
                    sheet: bridge.name, table: BridgeSheet.unitsTable, rows: bridge.unitRows, currencyColumn: BridgeSheet.currency,
                    column: BridgeSheet.apple, amount: false),
                amount: block.sumIf(
                    sheet: bridge.name, table: BridgeSheet.amountsTable, rows: bridge.amountRows, currencyColumn: BridgeSheet.currency,
                    column: BridgeSheet.apple, amount: true),
                from: "\(bridge.name), column Apple")
            if bridge.kind == .sales {
                block.add(
                    .text("Summary Sales: developer proceeds"), amount: block.money(totals.appleSalesProceeds),
                    from: "Summary Sales: units × Developer Proceeds")
            }
        }
    }

    static func ledger(_ block: inout Block, revenue: DetailSheet) {
        typealias C = DetailSheets.RevenueColumn
        block.heading("The ledger: transaction amounts, which explain Apple's numbers")
        func sum(_ column: Int, _ amount: Bool) -> ReportCell {
            block.sumIf(
                sheet: "Revenue", table: revenue.table, rows: revenue.rows, currencyColumn: C.currency, column: column, amount: amount)
        }
        if !revenue.rows.isEmpty {
            let gross = block.add(
                .text("gross revenue: paid purchases of the period"), units: sum(C.units, false), amount: sum(C.gross, true),
                from: "Revenue, columns units and gross")
            let refunds = block.add(
                .text("refunds booked in the period"), units: sum(C.refundUnits, false), amount: sum(C.refunds, true),
                from: "Revenue, columns refund units and refunds")
            func value(_ row: Int, _ column: Int) -> Int64 { CloseWorkbook.value(block.rows[row][column]) }
            block.add(
                .text("net"),
                units: .formula(
                    "=\(.cell(row: gross, column: units))+\(.cell(row: refunds, column: units))",
                    cached: .integer(value(gross, units) + value(refunds, units))),
                amount: .formula(
                    "=\(.cell(row: gross, column: amount))+\(.cell(row: refunds, column: amount))",
                    cached: block.money(value(gross, amount) + value(refunds, amount))),
                from: "gross + refunds")
        } else {
            block.add(.text("gross revenue: paid purchases of the period"), from: "no sale in the ledger")
        }
    }

    static func lossRows(_ block: inout Block, totals: CloseReport.Totals, losses: DetailSheet) {
        typealias C = DetailSheets.LossColumn
        block.heading("Losses: findings valued with their purchase's amount")
        guard !totals.losses.isEmpty else {
            block.add(.text("none valued in \(block.currency)"))
            return
        }
        var first: Int?
        for label in totals.losses.keys.sorted() {
            let criteria = [(C.currency, block.currency), (C.label, label)]
            let column = { (column: Int) in ReportReference.column(column, table: losses.table, sheet: "Losses") }
            let conditions: ReportFormula =
                "\(column(C.currency)),\(CloseWorkbook.quoted(block.currency)),\(column(C.label)),\(CloseWorkbook.quoted(label))"
            let row = block.add(
                .text(label),
                units: .formula(
                    ReportFormula(parts: [.text("=COUNTIFS(")] + conditions.parts + [.text(")")]),
                    cached: .integer(CloseWorkbook.count(losses.rows, where: criteria))),
                amount: .formula(
                    ReportFormula(parts: [.text("=SUMIFS("), .reference(column(C.amount)), .text(",")] + conditions.parts + [.text(")")]),
                    cached: block.money(CloseWorkbook.sum(losses.rows, C.amount, where: criteria))),
                from: "Losses, the rows of '\(label)'")
            first = first ?? row
        }
        if let first {
            let last = block.rows.count - 1
            let total = (first...last).reduce(Int64(0)) { $0 + CloseWorkbook.value(block.rows[$1][amount]) }
            block.add(
                .strong("total losses"), amount: .formula("=SUM(\(.cells(first...last, column: amount)))", cached: block.money(total)))
        }
    }

    /// The bridge from the ledger's purchases to Apple's number: ledger + each bucket + remainder, and their sum
    /// (a formula), which is Apple's number.
    static func walk(_ block: inout Block, bridge: BridgeSheet) {
        block.heading("Bridge: the ledger → Apple \(bridge.kind == .sales ? "Summary Sales" : "Financial proceeds")")
        func line(_ label: String, _ column: Int, _ from: String) -> Int {
            block.add(
                .text(label),
                units: block.sumIf(
                    sheet: bridge.name, table: BridgeSheet.unitsTable, rows: bridge.unitRows, currencyColumn: BridgeSheet.currency,
                    column: column, amount: false),
                amount: block.sumIf(
                    sheet: bridge.name, table: BridgeSheet.amountsTable, rows: bridge.amountRows, currencyColumn: BridgeSheet.currency,
                    column: column, amount: true),
                from: from)
        }
        let first = line("ledger: every purchase of the period, all classes", BridgeSheet.ledger, "\(bridge.name), column ledger")
        // The buckets with something in this currency (the others add 0).
        let currency = [(BridgeSheet.currency, block.currency)]
        for bucket in bridge.buckets {
            let column = bridge.column(of: bucket)!
            if CloseWorkbook.sum(bridge.amountRows, column, where: currency) == 0
                && CloseWorkbook.sum(bridge.unitRows, column, where: currency) == 0
            {
                continue
            }
            _ = line("+ \(bucket.rawValue)", column, bucket.meaning)
        }
        let last = line("+ remainder: unexplained", bridge.remainderColumn, "its purchases are listed on \(bridge.name)")
        func total(_ column: Int) -> Int64 { (first...last).reduce(Int64(0)) { $0 + CloseWorkbook.value(block.rows[$1][column]) } }
        block.add(
            .strong("= Apple \(bridge.kind == .sales ? "Summary Sales: customer price" : "Financial: proceeds")"),
            units: .formula("=SUM(\(.cells(first...last, column: units)))", cached: .integer(total(units))),
            amount: .formula("=SUM(\(.cells(first...last, column: amount)))", cached: block.money(total(amount))),
            from: "the sum above: Apple's number")
    }
}
