import Foundation
import IAPAuditModel
import IAPAuditPipeline

/// What `close` prints: the period, the totals per currency and the bridges, as text or one JSON object.
/// Amounts in the JSON are integer milliunits (`*_milliunits`); the text shows them with each currency's
/// decimals.
enum CloseSummary {
    static func text(_ result: CloseResult) -> String {
        let r = result.report
        var lines = [
            "iap-audit close \(r.period.label) (\(r.period.calendar.rawValue), \(r.period.timeZone.identifier)): "
                + "\(r.period.firstDay) to \(r.period.lastDay)"
        ]
        for (month, dates) in r.fiscalMonths {
            lines.append("  \(month) (reportDate \(month.reportDate)): \(dates.lowerBound) to \(dates.upperBound)")
        }
        lines.append("")
        // As the KPIs sheet says it (found by a finance user test: a period of nothing printed blank lines).
        if r.totals.isEmpty { lines.append("Nothing to report: no sale, refund or Apple report line in the period.") }
        for t in r.totals {
            let m = { (v: Int64) in Money(milliunits: v, currency: t.currency).description }
            // The purchases without a price are totalled under "—": units only, no amount to show.
            if t.currency == LedgerSale.noPrice {
                lines.append(
                    "no price (\(LedgerSale.noPrice)): \(r.unpriced.count) purchase(s) of the period, counted in units only (the Unpriced sheet; "
                        + "a --prices line for their product prices them)")
                let notValued = r.losses.filter { !$0.finding.kind.isInfo && $0.amount == nil }.count
                if notValued > 0 { lines.append("  \(notValued) loss finding(s) of no known price: on the Losses sheet, in no total") }
                continue
            }
            lines.append("\(t.currency):")
            if t.appleSalesUnits != 0 || t.appleSales != 0 {
                lines.append(
                    "  Apple Summary Sales      \(t.appleSalesUnits) units, \(m(t.appleSales)) (proceeds \(m(t.appleSalesProceeds)))")
            }
            if t.appleFinancialProceeds != 0 { lines.append("  Apple Financial proceeds \(m(t.appleFinancialProceeds))") }
            lines.append("  ledger gross \(m(t.gross)), refunds \(m(t.refunds)), net \(m(t.net))")
            for (label, value) in t.losses.sorted(by: { $0.key < $1.key }) { lines.append("  loss \(label): \(m(value))") }
        }
        for bridge in r.bridges {
            let unexplained = bridge.rows.filter { !$0.remainder.isZero }
            lines.append("")
            lines.append(
                "Bridge vs \(bridge.report.rawValue): \(bridge.rows.count) product/currency rows, \(unexplained.count) with an unexplained "
                    + "remainder")
            for row in unexplained {
                lines.append(
                    row.currency == LedgerSale.noPrice
                        ? "  \(row.productId), no price: remainder \(row.remainder.units) units"
                        : "  \(row.productId) \(row.currency): remainder \(row.remainder.units) units, "
                            + "\(Money(milliunits: row.remainder.milliunits, currency: row.currency))")
            }
        }
        lines.append("")
        lines.append("Wrote \(result.workbookPath) and the close tables in \(result.audit.databasePath)")
        return lines.joined(separator: "\n")
    }

    static func json(_ result: CloseResult) -> String {
        let r = result.report
        let tally = { (t: Tally) -> [String: Any] in ["units": t.units, "milliunits": t.milliunits] }
        let object: [String: Any] = [
            "period": [
                "label": r.period.label, "calendar": r.period.calendar.rawValue, "time_zone": r.period.timeZone.identifier,
                "start": "\(r.period.firstDay)", "end": "\(r.period.lastDay)",
                "fiscal_months": r.fiscalMonths.map {
                    ["report_date": $0.month.reportDate, "start": "\($0.dates.lowerBound)", "end": "\($0.dates.upperBound)"]
                },
            ] as [String: Any],
            "totals": Dictionary(
                uniqueKeysWithValues: r.totals.map { t in
                    (
                        t.currency,
                        [
                            // Absent (null), not zero, without the period's report among the inputs, or for no price.
                            "apple_sales_units": r.hasAppleFigures(t).sales ? t.appleSalesUnits : NSNull(),
                            "apple_sales_milliunits": r.hasAppleFigures(t).sales ? t.appleSales : NSNull(),
                            "apple_sales_proceeds_milliunits": r.hasAppleFigures(t).sales ? t.appleSalesProceeds : NSNull(),
                            "apple_financial_proceeds_milliunits": r.hasAppleFigures(t).financial ? t.appleFinancialProceeds : NSNull(),
                            "gross_milliunits": t.gross,
                            "refunds_milliunits": t.refunds, "net_milliunits": t.net, "losses_milliunits": t.losses,
                        ] as [String: Any]
                    )
                }),
            "bridges": r.bridges.map { bridge in
                [
                    "report": bridge.report.rawValue,
                    "rows": bridge.rows.map { row in
                        [
                            "product_id": row.productId, "currency": row.currency, "ledger": tally(row.ledger), "apple": tally(row.apple),
                            "variance": tally(row.variance), "remainder": tally(row.remainder),
                            "buckets": Dictionary(uniqueKeysWithValues: row.buckets.map { ($0.key.rawValue, tally($0.value)) }),
                            "remainder_purchases": row.remainderSales.sorted(),
                        ] as [String: Any]
                    },
                ] as [String: Any]
            },
            "payments": r.payments.map { p in
                [
                    "region": p.line.region, "currency": p.line.earned.currency, "units": p.line.units,
                    "financial_proceeds_milliunits": p.financialProceeds, "earned_milliunits": p.line.earned.milliunits,
                    "earned_variance_milliunits": p.earnedVariance, "withholding_tax_milliunits": p.line.withholdingTax.milliunits,
                    "owed_milliunits": p.owed, "exchange_rate": p.line.exchangeRate,
                    "converted_milliunits": p.converted.map { $0 as Any } ?? NSNull(), "proceeds_milliunits": p.line.proceeds.milliunits,
                    "bank_currency": p.line.proceeds.currency,
                    "conversion_difference_milliunits": p.conversionDifference.map { $0 as Any } ?? NSNull(),
                ] as [String: Any]
            },
            "unpriced_purchases": r.unpriced.count,
            "outputs": ["xlsx": result.workbookPath, "sqlite": result.audit.databasePath],
            "warnings": result.warnings.map {
                ["code": $0.code.rawValue, "message": $0.message, "file": $0.file.map { $0 as Any } ?? NSNull()] as [String: Any]
            },
        ]
        return JSONText.encode(object)
    }
}
