import IAPAuditModel

/// Which of the ledger's purchases a close of a period can book (docs/close.md, Time and memory).
package enum CloseWindow {
    /// The purchases a close of `period` reads: those with a purchase, original purchase or refund date in the
    /// instants it books — the period itself (revenue, refunds, the daily sheet), its days in Pacific time (the Sales
    /// bridge) and the fiscal months it books, by the rule or by a Financial report's dates (the Financial bridge) —
    /// widened by a day each side, and those of a transaction a finding names (the losses). A purchase with none of
    /// its dates there adds to none of the close's figures.
    /// - Parameters:
    ///   - financial: the ledger's Financial report lines (their dates may move a fiscal month's).
    ///   - findings: the run's findings.
    ///   - products: the config's product types (the purchase key, `LedgerSales.key`).
    package static func relevance(
        period: AccountingPeriod, financial: [FinancialLine], findings: [Finding], products: [String: ProductType]
    ) -> CloseRelevance {
        let months = Bridge.fiscalMonths(of: period)
        var days = [period.firstDay...period.lastDay] + months.map(FiscalCalendar.datesByRule)
        // A report's dates near the period's fiscal months may be theirs (CloseBuilder takes them as the month's).
        let near = days.map(\.lowerBound).min()!.adding(days: -62)...days.map(\.upperBound).max()!.adding(days: 62)
        for line in financial where near.contains(line.startDate) { days.append(line.startDate...max(line.startDate, line.endDate)) }
        let pacific = PeriodTimeZone.pacific
        let first = days.map(\.lowerBound).min()!
        let last = days.map(\.upperBound).max()!
        let day: Int64 = 86_400_000
        let startMs = min(period.startMs, pacific.startMs(of: first)) - day
        let endMs = max(period.endMs, pacific.startMs(of: last.adding(days: 1))) + day
        return CloseRelevance(
            windowMs: startMs...endMs, transactionIds: Set(findings.map(\.transactionId)), key: { LedgerSales.key($0, products) })
    }
}
