import IAPAuditModel

extension AuditStore {
    /// The totals an earlier close of `period` (its `closeName`) stored, by currency then measure (`close_total`);
    /// nil when the period was never closed in this ledger.
    package func closeTotals(period: String) throws -> [String: [String: Int64]]? {
        let closed = try database.prepare("SELECT 1 FROM close_period WHERE period = ?1")
        closed.bind([period])
        guard try closed.step() else { return nil }
        let q = try database.prepare("SELECT currency, measure, value FROM close_total WHERE period = ?1")
        q.bind([period])
        var totals: [String: [String: Int64]] = [:]
        while try q.step() { totals[q.text(0), default: [:]][q.text(1)] = q.int64(2) }
        // What close_total does not hold: the purchases and valued findings, also those of no price (`CloseRestatement`).
        for (sql, measures) in [
            (
                "SELECT coalesce(currency, '—'), count(*), sum(units) FROM close_sale WHERE period = ?1 GROUP BY 1",
                ["purchases", "purchase_units"]
            ),
            ("SELECT coalesce(currency, '—'), count(*) FROM close_loss WHERE period = ?1 GROUP BY 1", ["loss_findings"]),
        ] {
            let counts = try database.prepare(sql)
            counts.bind([period])
            while try counts.step() {
                for (i, m) in measures.enumerated() { totals[counts.text(0), default: [:]][m] = counts.int64(Int32(i + 1)) }
            }
        }
        return totals
    }

    /// The periods closed before the ledger was migrated and not closed since (`ledger_schema` `reclose`), in order: their
    /// losses were booked the old way.
    package func periodsToCloseAgain() throws -> [String] {
        let q = try database.prepare("SELECT value FROM ledger_schema WHERE name = 'reclose'")
        return try q.step() ? q.text(0).split(separator: ",").map(String.init) : []
    }

    /// Replaces a period's close tables (docs/schema.md: `close_period`, `close_sale`, `close_refund`,
    /// `close_loss`, `close_bridge`, `close_total`) in one transaction: closing a period again on the same inputs gives the same rows.
    /// `priceList`: the `--prices` file (its path and SHA-256 are kept on `close_period`).
    /// - Parameter warnings: the close's warnings: those of a close's codes (`RunWarning.Code.closeOnly`) go to `run_warning`
    ///   beside its run's, replacing an earlier close's (found by a finance retest: `period_open`, `close_restated` were on
    ///   stderr and the Cover only, though docs/close.md says `run_warning` too).
    package func replaceClose(_ report: CloseReport, priceList: FileSummary? = nil, warnings: [RunWarning] = []) throws {
        let period = report.period.closeName
        try database.transaction {
            try clearClose(period, warnings: warnings)
            try insertPeriod(report, priceList: priceList)
            try insertSales(report)
            try insertRefundsAndLosses(report)
            try insertBridges(report)
            try insertTotals(report)
        }
    }

    /// Deletes the period's close rows and an earlier close's warnings, storing this close's (`RunWarning.Code.closeOnly`).
    private func clearClose(_ period: String, warnings: [RunWarning]) throws {
        let codes = RunWarning.Code.closeOnly.map(\.rawValue).sorted()
        try database.execute("DELETE FROM run_warning WHERE code IN (\(codes.map { "'\($0)'" }.joined(separator: ", ")))")
        let warning = try database.prepare("INSERT INTO run_warning (code, message, file) VALUES (?1, ?2, ?3)")
        for w in warnings where RunWarning.Code.closeOnly.contains(w.code) { try warning.run([w.code.rawValue, w.message, w.file]) }
        for table in ["close_period", "close_sale", "close_refund", "close_loss", "close_bridge", "close_total"] {
            try database.prepare("DELETE FROM \(table) WHERE period = ?1").run([period])
        }
        // Closed again since a migration: no longer to close again (found by a retest: the notice still named it).
        let left = try periodsToCloseAgain().filter { $0 != period }
        if left.isEmpty {
            try database.execute("DELETE FROM ledger_schema WHERE name = 'reclose'")
        } else {
            try database.prepare("UPDATE ledger_schema SET value = ?1 WHERE name = 'reclose'").run([left.joined(separator: ",")])
        }
    }

    /// `close_period`: the period, its fiscal months and the price list used.
    private func insertPeriod(_ report: CloseReport, priceList: FileSummary?) throws {
        let period = report.period.closeName
        try database.prepare(
            "INSERT INTO close_period (period, calendar, time_zone, first_day, last_day, start_ms, end_ms, fiscal_months, "
                + "price_list, price_list_sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        ).run([
            period, report.period.calendar.rawValue, report.period.timeZone.identifier, "\(report.period.firstDay)",
            "\(report.period.lastDay)", report.period.startMs, report.period.endMs,
            IdList.encode(report.fiscalMonths.map { "\($0.month.reportDate) \($0.dates.lowerBound)..\($0.dates.upperBound)" }),
            priceList?.path, priceList?.sha256,
        ])
    }

    /// `close_sale`: one row per purchase the period books.
    private func insertSales(_ report: CloseReport) throws {
        let period = report.period.closeName
        let sale = try database.prepare(
            "INSERT INTO close_sale (period, purchase_key, transaction_ids, product_id, purchase_ms, country_code, amount_milliunits, "
                + "currency, pricing, sale_class, exclusion, is_trial, refunded_milliunits, evidence, units) "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)")
        for s in report.sales {
            try sale.run([
                period, s.key, IdList.encode(s.transactionIds), s.productId, s.purchaseMs, s.countryCode, s.amount?.milliunits,
                s.amount?.currency, s.pricing.rawValue, s.saleClass.rawValue, s.exclusion, s.isTrial,
                // Refunded in the period (FINANCE.md: a refund is booked in the period it happens; a later one is a
                // later period's close_refund row). Found by a finance user test: a September purchase refunded on
                // October 12 showed it refunded in September's close_sale too, counted twice across the two closes.
                s.refunds.filter { report.period.contains($0.atMs) }.reduce(Int64(0)) { $0 + ($1.amount?.milliunits ?? 0) },
                IdList.encode(s.evidence.map(\.description)), s.units,
            ])
        }
    }

    /// `close_refund` and `close_loss`: the period's refunds and its findings valued.
    private func insertRefundsAndLosses(_ report: CloseReport) throws {
        let period = report.period.closeName
        let refund = try database.prepare(
            "INSERT INTO close_refund (period, purchase_key, transaction_ids, product_id, purchase_ms, refunded_ms, amount_milliunits, "
                + "currency, pricing, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
        for r in report.refunds {
            try refund.run([
                period, r.sale.key, IdList.encode(r.sale.transactionIds), r.sale.productId, r.sale.purchaseMs, r.refund.atMs,
                r.refund.amount?.milliunits, r.refund.amount?.currency, r.sale.pricing.rawValue, r.refund.location.description,
            ])
        }
        let loss = try database.prepare(
            "INSERT INTO close_loss (period, kind, transaction_id, reason, label, amount_milliunits, currency, pricing, first_seen_ms, "
                + "loss_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
        for l in report.losses {
            try loss.run([
                period, l.finding.kind.rawValue, l.finding.transactionId, l.finding.reason, l.label, l.amount?.milliunits,
                l.amount?.currency, l.pricing.rawValue, l.finding.firstSeenMs, l.finding.lossAtMs,
            ])
        }
    }

    /// `close_bridge`: per report, product and currency, the ledger's and Apple's figures and the buckets between them.
    private func insertBridges(_ report: CloseReport) throws {
        let period = report.period.closeName
        // Bound by column name: the buckets' two columns each, named after the bucket.
        let columns =
            [
                "period", "report", "product_id", "currency", "ledger_units", "ledger_milliunits", "apple_units", "apple_milliunits",
                "variance_units", "variance_milliunits",
            ] + BridgeBucket.allCases.flatMap { ["\($0.rawValue)_units", "\($0.rawValue)_milliunits"] }
            + ["remainder_units", "remainder_milliunits", "countries", "remainder_sales"]
        let bridge = try database.prepare(
            "INSERT INTO close_bridge (\(columns.joined(separator: ", "))) VALUES ("
                + columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ") + ")")
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
    }

    /// `close_total`: per currency, each measure of the close.
    private func insertTotals(_ report: CloseReport) throws {
        let period = report.period.closeName
        let total = try database.prepare("INSERT INTO close_total (period, currency, measure, value) VALUES (?1, ?2, ?3, ?4)")
        for t in report.totals {
            for (measure, value) in report.measures(t) { try total.run([period, t.currency, measure, value]) }
        }
    }
}
