import IAPAuditModel

extension AuditStore {
    /// Replaces a period's close tables (docs/schema.md: `close_period`, `close_sale`, `close_bridge`,
    /// `close_total`) in one transaction: closing a period again on the same inputs gives the same rows.
    package func replaceClose(_ report: CloseReport) throws {
        let period = report.period.closeName
        try database.transaction {
            for table in ["close_period", "close_sale", "close_bridge", "close_total"] {
                try database.prepare("DELETE FROM \(table) WHERE period = ?1").run([period])
            }
            try database.prepare("INSERT INTO close_period VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)").run([
                period, report.period.calendar.rawValue, report.period.timeZone.identifier, "\(report.period.firstDay)",
                "\(report.period.lastDay)", report.period.startMs, report.period.endMs,
                IdList.encode(report.fiscalMonths.map { "\($0.month.reportDate) \($0.dates.lowerBound)..\($0.dates.upperBound)" }),
            ])
            let sale = try database.prepare("INSERT INTO close_sale VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")
            for s in report.sales {
                try sale.run([
                    period, s.key, IdList.encode(s.transactionIds), s.productId, s.purchaseMs, s.countryCode, s.amount?.milliunits,
                    s.amount?.currency, s.pricing.rawValue, s.saleClass.rawValue, s.exclusion, s.isTrial,
                    s.refunds.reduce(Int64(0)) { $0 + ($1.amount?.milliunits ?? 0) }, IdList.encode(s.evidence.map(\.description)),
                ])
            }
            let columns = 14 + 2 * BridgeBucket.allCases.count
            let bridge = try database.prepare(
                "INSERT INTO close_bridge VALUES (" + (1...columns).map { "?\($0)" }.joined(separator: ", ") + ")")
            for b in report.bridges {
                for row in b.rows {
                    var values: [any SQLBindable] = [
                        period, b.report.rawValue, row.productId, row.currency, row.ledger.units, row.ledger.milliunits, row.apple.units,
                        row.apple.milliunits, row.variance.units, row.variance.milliunits,
                    ]
                    for bucket in BridgeBucket.allCases {
                        let tally = row.buckets[bucket] ?? Tally()
                        values += [tally.units, tally.milliunits]
                    }
                    values += [
                        row.remainder.units, row.remainder.milliunits, IdList.encode(row.countries.sorted()),
                        IdList.encode(row.remainderSales.sorted()),
                    ]
                    try bridge.run(values)
                }
            }
            let total = try database.prepare("INSERT INTO close_total VALUES (?1, ?2, ?3, ?4)")
            for t in report.totals {
                var measures: [(String, Int64)] = [
                    ("apple_sales_units", t.appleSalesUnits), ("apple_sales", t.appleSales), ("apple_sales_proceeds", t.appleSalesProceeds),
                    ("apple_financial_proceeds", t.appleFinancialProceeds), ("gross", t.gross), ("refunds", t.refunds), ("net", t.net),
                ]
                measures += t.losses.sorted { $0.key < $1.key }.map { ("loss \($0.key)", $0.value) }
                for (measure, value) in measures { try total.run([period, t.currency, measure, value]) }
            }
        }
    }
}
