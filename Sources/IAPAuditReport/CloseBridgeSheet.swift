import IAPAuditModel

/// A bridge sheet (docs/close.md, "The bridge"): per product and currency, the ledger's number, Apple's,
/// the variance and its buckets as columns, each with a note saying what it holds, and the remainder;
/// amounts first, then the same bridge in units, then the ledger's purchases behind the remainders.
/// Variance and remainder are formulas of the row (Apple − ledger; variance − Σ buckets).
struct BridgeSheet {
    /// The tables: 0 the caption, 1 amounts, 2 units, 3 the remainder's purchases.
    static let amountsTable = 1, unitsTable = 2
    static let product = 0, currency = 1, countries = 2, ledger = 3, apple = 4, variance = 5, firstBucket = 6

    let kind: Bridge.Report
    let bridge: Bridge?
    /// The bucket columns, in `BridgeBucket` order from `firstBucket`.
    let buckets: [BridgeBucket]
    let amountRows: [[ReportCell]]
    let unitRows: [[ReportCell]]
    let sheet: ReportSheet

    var name: String { Self.name(kind) }
    var remainderColumn: Int { Self.firstBucket + buckets.count }
    func column(of bucket: BridgeBucket) -> Int? { buckets.firstIndex(of: bucket).map { Self.firstBucket + $0 } }

    /// Whether the bridge has a row in `currency`.
    func has(_ currency: String) -> Bool { bridge?.rows.contains { $0.currency == currency } ?? false }

    static func name(_ kind: Bridge.Report) -> String { kind == .sales ? "Bridge vs Sales" : "Bridge vs Financial" }

    /// The buckets a report's bridge computes (docs/close.md): timing by time zone for Sales, by fiscal month
    /// and Apple's commission for Financial.
    static func buckets(_ kind: Bridge.Report) -> [BridgeBucket] {
        BridgeBucket.allCases.filter { kind == .sales ? $0 != .timingFiscal && $0 != .commissionTax : $0 != .timingTimezone }
    }

    init(_ bridge: Bridge?, kind: Bridge.Report, report: CloseReport) {
        self.kind = kind
        self.bridge = bridge
        let used = Set(bridge?.rows.flatMap { $0.buckets.filter { !$0.value.isZero }.map(\.key) } ?? [])
        let buckets = BridgeBucket.allCases.filter { Self.buckets(kind).contains($0) || used.contains($0) }
        self.buckets = buckets
        let rows = bridge?.rows ?? []
        amountRows = rows.map { Self.row($0, buckets: buckets, amounts: true) }
        unitRows = rows.map { Self.row($0, buckets: buckets, amounts: false) }

        let p = report.period
        let caption: ReportTable
        switch kind {
        case .sales:
            caption = .note(
                "Bridge from the ledger to Apple's Summary Sales, Pacific-time days \(p.firstDay) to \(p.lastDay) (units × Customer "
                    + "Price): variance = Apple − ledger = Σ buckets + remainder, exactly, in amounts and in units")
        case .financial:
            let months = report.fiscalMonths.map { "\($0.month) (\($0.dates.lowerBound) to \($0.dates.upperBound))" }
            caption = .note(
                "Bridge from the ledger to Apple's Financial reports of \(months.joined(separator: ", ")) (Extended Partner Share): "
                    + "variance = Apple − ledger = Σ buckets + remainder, exactly, in amounts and in units")
        }
        guard bridge != nil else {
            let report = kind == .sales ? "daily Summary Sales report" : "Financial report"
            sheet = ReportSheet(
                name: Self.name(kind),
                tables: [
                    caption, .note("No \(report) for the period among the inputs: give App Store Connect's \(report)s to bridge to them."),
                ])
            return
        }
        let header =
            ["product_id", "currency", "countries", "ledger", "Apple", "variance"] + buckets.map(\.rawValue) + ["remainder"]
        let notes =
            [
                "", "— : the ledger's purchases without a price (units only)", "of the ledger's sales and Apple's lines",
                "every purchase the ledger holds in the period, all classes: transaction amounts",
                kind == .sales
                    ? "units × Customer Price: the source of record" : "Extended Partner Share (proceeds): the source of record",
                "Apple − ledger",
            ] + buckets.map(\.meaning) + ["variance − Σ buckets: what no bucket explains (purchases listed below)"]
        let numeric = Array(Self.ledger...(Self.firstBucket + buckets.count))
        let amounts = ReportTable(
            notes: notes, header: header, rows: amountRows,
            footer: CloseWorkbook.currencyTotals(
                amountRows, width: header.count, currencyColumn: Self.currency, sums: numeric, amounts: Set(numeric)),
            isPrimary: true)
        let units = ReportTable(
            title: "Units: the same bridge counted in units (a refund is −1)", header: header, rows: unitRows,
            footer: CloseWorkbook.currencyTotals(unitRows, width: header.count, currencyColumn: Self.currency, sums: numeric, amounts: []))
        sheet = ReportSheet(name: Self.name(kind), tables: [caption, amounts, units, Self.remainderTable(rows, report: report)])
    }

    /// One bridge row, in amounts or in units: variance and remainder as formulas of the row.
    static func row(_ row: BridgeRow, buckets: [BridgeBucket], amounts: Bool) -> [ReportCell] {
        let isCurrency = CloseWorkbook.isCurrency(row.currency)
        let cell = { (tally: Tally) -> ReportCell in
            amounts ? CloseWorkbook.money(tally.milliunits, row.currency) : .integer(tally.units)
        }
        let cached = { (tally: Tally) -> ReportCell in
            amounts ? .money(tally.milliunits, currency: row.currency) : .integer(tally.units)
        }
        var cells: [ReportCell] = [
            .text(row.productId), .text(row.currency), .text(row.countries.sorted().joined(separator: ", ")), cell(row.ledger),
            cell(row.apple),
        ]
        let formulas = !amounts || isCurrency
        cells.append(formulas ? .formula("=\(.here(apple))-\(.here(ledger))", cached: cached(row.variance)) : .empty)
        cells += buckets.map { cell(row.buckets[$0] ?? Tally()) }
        let first = Self.firstBucket
        let last = first + buckets.count - 1
        cells.append(
            formulas
                ? .formula(
                    "=\(.here(variance))-SUM(\(.here(first)):\(.here(last)))",
                    cached: cached(row.remainder)) : .empty)
        return cells
    }

    /// The ledger's purchases behind each unexplained remainder, and the remainders no purchase explains.
    static func remainderTable(_ rows: [BridgeRow], report: CloseReport) -> ReportTable {
        var sales: [String: LedgerSale] = [:]
        for sale in report.sales { sales[sale.key] = sale }
        var cells: [[ReportCell]] = []
        // The product's purchases without a price are on a row of their own (currency —): they may be what Apple counts
        // in a currency the ledger has none of (found by a finance user test: the two rows read as unrelated).
        var unpriced: [String: Int64] = [:]
        for row in rows where row.currency == LedgerSale.noPrice && !row.remainder.isZero { unpriced[row.productId] = -row.remainder.units }
        for row in rows where !row.remainder.isZero {
            if row.remainderSales.isEmpty {
                let them = unpriced[row.productId].map {
                    "; the ledger's \($0) unpriced unit(s) of this product (currency \(LedgerSale.noPrice), listed here) may be them: price "
                        + "the product (--prices) to bridge them"
                }
                cells.append([
                    .text(row.productId), .text(row.currency), .text("none in the ledger in \(row.currency)"), .empty, .empty, .empty,
                    .empty, .empty, .empty, .text("Apple counts \(row.remainder.units) unit(s) the buckets do not explain" + (them ?? "")),
                ])
            }
            for key in row.remainderSales.sorted() {
                let sale = sales[key]
                cells.append([
                    .text(row.productId), .text(row.currency), .text(key), sale?.purchaseMs.map(ReportCell.dateTime) ?? .empty,
                    .text(sale?.saleClass.rawValue ?? ""), .text(sale?.pricing.rawValue ?? ""), CloseWorkbook.money(sale?.amount),
                    .text(sale?.countryCode ?? ""), .text(sale?.transactionIds.joined(separator: ", ") ?? ""),
                    .text(sale?.evidence.map(\.description).joined(separator: "; ") ?? ""),
                ])
            }
        }
        guard !cells.isEmpty else { return .note("Remainder: none. Every difference is explained by a bucket.") }
        return ReportTable(
            title: "Remainder: the ledger's purchases behind it (check each against Apple's report)",
            header: [
                "product_id", "currency", "purchase", "purchased (UTC)", "class", "pricing", "amount", "country", "transaction_ids",
                "evidence",
            ], rows: cells, wrapsToWidths: true)
    }
}
