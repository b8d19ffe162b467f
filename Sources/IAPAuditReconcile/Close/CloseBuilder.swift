import IAPAuditModel

/// Builds a `CloseReport` from the ledger's inputs.
package enum CloseBuilder {
    package static func build(
        _ inputs: CloseInputs, period: AccountingPeriod, products: [String: ProductType], prices: PriceList?
    ) -> CloseReport {
        // Report dates win over the rule (FINANCE.md): a financial report names its fiscal month's dates.
        var fiscal = FiscalCalendar()
        for line in inputs.financial {
            let month = fiscal.fiscalMonth(containing: line.startDate)
            try? fiscal.useReportedDates(line.startDate...line.endDate, for: month)
        }
        var currencyOfCountry: [String: String] = [:]
        for line in inputs.sales where line.customerPrice.milliunits > 0 {
            currencyOfCountry[line.countryCode] = line.customerPrice.currency
        }
        let sales = LedgerSales.build(
            inputs, products: products, prices: prices, currencyOfCountry: currencyOfCountry, timeZone: period.timeZone)
        let inPeriod = sales.filter { $0.purchaseMs.map(period.contains) ?? false }
        var revenue: [String: CloseReport.Revenue] = [:]
        var refunds: [CloseReport.RefundLine] = []
        var daily: [String: CloseReport.Day] = [:]
        for sale in sales where sale.saleClass == .paid {
            guard let product = sale.productId else { continue }
            let currency = sale.amount?.currency ?? "—"
            let key = product + "\u{0}" + currency
            if let at = sale.purchaseMs, period.contains(at) {
                let value = Tally(units: 1, milliunits: sale.isTrial ? 0 : sale.amount?.milliunits ?? 0)
                revenue[key, default: .init(productId: product, currency: currency)].sales += value
                if sale.isTrial { revenue[key]!.trialUnits += 1 }
                if sale.pricing == .estimated { revenue[key]!.estimated += value }
                let day = period.timeZone.date(containing: at)
                daily["\(day)\u{0}\(currency)", default: .init(day: day, currency: currency, revenue: 0, refunds: 0)].revenue +=
                    value.milliunits
            }
            for refund in sale.refunds where period.contains(refund.atMs) && !sale.isTrial {
                let amount = refund.amount?.milliunits ?? 0
                revenue[key, default: .init(productId: product, currency: currency)].refunds += Tally(units: -1, milliunits: -amount)
                refunds.append(.init(sale: sale, refund: refund))
                let day = period.timeZone.date(containing: refund.atMs)
                daily["\(day)\u{0}\(currency)", default: .init(day: day, currency: currency, revenue: 0, refunds: 0)].refunds -= amount
            }
        }
        let losses = value(inputs.findings, sales)
        var bridges: [Bridge] = []
        if inputs.sales.contains(where: { $0.beginDate >= period.firstDay && $0.beginDate <= period.lastDay }) {
            bridges.append(.sales(sales, inputs.sales, period: period))
        }
        let months = Bridge.fiscalMonths(of: period)
        let spans = months.map { fiscal.dates(of: $0) }
        if inputs.financial.contains(where: { line in spans.contains { $0.contains(line.startDate) } }) {
            bridges.append(.financial(sales, inputs.financial, period: period, fiscalCalendar: fiscal))
        }
        return CloseReport(
            period: period, fiscalMonths: zip(months, spans).map { ($0, $1) }, sales: inPeriod,
            revenue: revenue.values.sorted { ($0.productId, $0.currency) < ($1.productId, $1.currency) },
            refunds: refunds.sorted { ($0.refund.atMs, $0.sale.key) < ($1.refund.atMs, $1.sale.key) }, losses: losses,
            unpriced: inPeriod.filter { $0.pricing == .unpriced },
            totals: totals(revenue.values, losses, inputs, period: period, spans: spans),
            daily: daily.values.sorted { ($0.day, $0.currency) < ($1.day, $1.currency) }, bridges: bridges)
    }

    /// Every finding with its purchase's amount (a refund still granted: the refunded share).
    static func value(_ findings: [Finding], _ sales: [LedgerSale]) -> [CloseReport.ValuedFinding] {
        var saleOf: [String: Int] = [:]
        for (k, sale) in sales.enumerated() { for id in sale.transactionIds { saleOf[id] = k } }
        return findings.map { f in
            guard let k = saleOf[f.transactionId] else { return .init(finding: f, amount: nil, pricing: .unpriced) }
            let sale = sales[k]
            let amount = f.kind == .refundStillGranted ? sale.refunds.first?.amount ?? sale.amount : sale.amount
            return .init(finding: f, amount: amount, pricing: amount == nil ? .unpriced : sale.pricing)
        }
    }

    private static func totals(
        _ revenue: Dictionary<String, CloseReport.Revenue>.Values, _ losses: [CloseReport.ValuedFinding], _ inputs: CloseInputs,
        period: AccountingPeriod, spans: [ClosedRange<CalendarDate>]
    ) -> [CloseReport.Totals] {
        var totals: [String: CloseReport.Totals] = [:]
        for r in revenue {
            totals[r.currency, default: .init(currency: r.currency)].gross += r.sales.milliunits
            totals[r.currency]!.refunds += r.refunds.milliunits
        }
        for line in inputs.sales where line.beginDate >= period.firstDay && line.beginDate <= period.lastDay {
            let currency = line.customerPrice.currency
            totals[currency, default: .init(currency: currency)].appleSalesUnits += line.units
            totals[currency]!.appleSales += line.units * line.customerPrice.milliunits
            totals[line.proceeds.currency, default: .init(currency: line.proceeds.currency)].appleSalesProceeds +=
                line.units * line.proceeds.milliunits
        }
        for line in inputs.financial where spans.contains(where: { $0.contains(line.startDate) }) {
            let currency = line.extendedPartnerShare.currency
            totals[currency, default: .init(currency: currency)].appleFinancialProceeds += line.extendedPartnerShare.milliunits
        }
        for loss in losses where !loss.finding.kind.isInfo {
            guard let amount = loss.amount else { continue }
            totals[amount.currency, default: .init(currency: amount.currency)].losses[loss.label, default: 0] +=
                amount.milliunits
        }
        return totals.values.sorted { $0.currency < $1.currency }
    }
}
