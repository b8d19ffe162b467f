import IAPAuditModel

/// A period closed again with other totals than its last close in this ledger (docs/close.md, "Closing again"):
/// said, never silent — the close tables keep only the latest close, and a figure already reported may have moved
/// (a provisional close whose pending purchases became dropped orders, a report given late, a price list changed).
package enum CloseRestatement {
    /// Measures named in the warning, at most.
    static let named = 6
    /// Measures that count rows, not money.
    static let counts: Set<String> = ["purchases", "loss_findings"]

    /// The `close_restated` warning, or nil when every measure is as the earlier close stored it.
    /// - Parameters:
    ///   - before: the earlier close's totals, by currency then measure (`close_total`).
    ///   - after: this close's totals.
    package static func warning(period: String, before: [String: [String: Int64]], after report: CloseReport) -> RunWarning? {
        var now: [String: [String: Int64]] = [:]
        for t in report.totals { for m in report.measures(t) { now[t.currency, default: [:]][m.name] = m.value } }
        // The purchases and valued findings per currency, those of no price (—) too: their figures are in no total (found by a
        // finance retest: an unpriced purchase and its dropped order arrived, and nothing said so).
        for sale in report.sales {
            let currency = sale.amount?.currency ?? LedgerSale.noPrice
            now[currency, default: [:]]["purchases", default: 0] += 1
            now[currency, default: [:]]["purchase_units", default: 0] += sale.units
        }
        for loss in report.losses { now[loss.amount?.currency ?? LedgerSale.noPrice, default: [:]]["loss_findings", default: 0] += 1 }
        var changes: [String] = []
        // What has no price first: it is in no other total.
        for currency in Set(before.keys).union(now.keys).sorted(by: {
            $0 == LedgerSale.noPrice ? $1 != LedgerSale.noPrice : $1 != LedgerSale.noPrice && $0 < $1
        }) {
            let (was, is_) = (before[currency] ?? [:], now[currency] ?? [:])
            // A measure absent on one side is 0 there: a total of 0 that went (the no-price row of a close whose every
            // purchase is priced now) moved nothing, and named first it hid the figures that did (helper-38).
            for measure in Set(was.keys).union(is_.keys).sorted() where was[measure] ?? 0 != is_[measure] ?? 0 {
                func shown(_ value: Int64?) -> String {
                    let value = value ?? 0
                    if measure.hasSuffix("_units") || Self.counts.contains(measure) { return "\(value)" }
                    return Money.decimal(value, digits: CurrencyDigits.minorUnits(currency))
                }
                // One form for every measure (found by a user test, which read two): `EUR loss dropped_order claimed 29.97 →
                // 71.94`, `EUR apple_sales_units 571 → 462`, `— loss_findings 1 → 0`.
                changes.append("\(currency) \(measure) \(shown(was[measure])) → \(shown(is_[measure]))")
            }
        }
        guard !changes.isEmpty else { return nil }
        let more = changes.count > named ? " and \(changes.count - named) more" : ""
        return RunWarning(
            .closeRestated,
            "\(period) was closed before in this ledger with other totals: \(changes.prefix(named).joined(separator: "; "))\(more); "
                + "this close replaces them (table close_total): a figure reported from the earlier close has moved")
    }
}
