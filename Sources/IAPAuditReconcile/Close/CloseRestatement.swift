import IAPAuditModel

/// A period closed again with other totals than its last close in this ledger (docs/close.md, "Closing again"):
/// said, never silent — the close tables keep only the latest close, and a figure already reported may have moved
/// (a provisional close whose pending purchases became dropped orders, a report given late, a price list changed).
package enum CloseRestatement {
    /// Measures named in the warning, at most.
    static let named = 6

    /// The `close_restated` warning, or nil when every measure is as the earlier close stored it.
    /// - Parameters:
    ///   - before: the earlier close's totals, by currency then measure (`close_total`).
    ///   - after: this close's totals.
    package static func warning(period: String, before: [String: [String: Int64]], after: [CloseReport.Totals]) -> RunWarning? {
        var now: [String: [String: Int64]] = [:]
        for t in after { for m in t.measures { now[t.currency, default: [:]][m.name] = m.value } }
        var changes: [String] = []
        for currency in Set(before.keys).union(now.keys).sorted() {
            let (was, is_) = (before[currency] ?? [:], now[currency] ?? [:])
            for measure in Set(was.keys).union(is_.keys).sorted() where was[measure] != is_[measure] {
                func shown(_ value: Int64?) -> String {
                    guard let value else { return "none" }
                    return measure.hasSuffix("_units") ? "\(value) units" : Money(milliunits: value, currency: currency).description
                }
                // `loss dropped_order claimed EUR 29.97 → EUR 71.94`; units and an absent measure name their currency first.
                let named = measure.hasSuffix("_units") || was[measure] == nil || is_[measure] == nil ? "\(currency) \(measure)" : measure
                changes.append("\(named) \(shown(was[measure])) → \(shown(is_[measure]))")
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
