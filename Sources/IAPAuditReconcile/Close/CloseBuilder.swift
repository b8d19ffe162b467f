import IAPAuditModel

/// Builds a `CloseReport` from the ledger's inputs.
package enum CloseBuilder {
    package static func build(
        _ given: CloseInputs, period: AccountingPeriod, products: [String: ProductType], prices: PriceList?
    ) -> CloseReport {
        // Report dates win over the rule (FINANCE.md): a financial report names its fiscal month's dates.
        var fiscal = FiscalCalendar()
        for line in given.financial {
            let month = fiscal.fiscalMonth(containing: line.startDate)
            try? fiscal.useReportedDates(line.startDate...line.endDate, for: month)
        }
        let checkedMonths = Bridge.fiscalMonths(of: period).map { ($0, fiscal.dates(of: $0)) }
        // Apple's reports: copies counted once, gaps and rejected lines said.
        let (inputs, reportWarnings) = ReportCheck.check(given, period: period, fiscalMonths: checkedMonths)
        fiscal = FiscalCalendar()
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
            let currency = sale.amount?.currency ?? LedgerSale.noPrice
            let key = product + "\u{0}" + currency
            if let at = sale.purchaseMs, period.contains(at) {
                let value = Tally(units: sale.units, milliunits: sale.isTrial ? 0 : sale.amount?.milliunits ?? 0)
                revenue[key, default: .init(productId: product, currency: currency)].sales += value
                if sale.isTrial { revenue[key]!.trialUnits += sale.units }
                if sale.pricing == .estimated { revenue[key]!.estimated += value }
                let day = period.timeZone.date(containing: at)
                daily["\(day)\u{0}\(currency)", default: .init(day: day, currency: currency, revenue: 0, refunds: 0)].revenue +=
                    value.milliunits
            }
            for refund in sale.refunds where period.contains(refund.atMs) && !sale.isTrial {
                let amount = refund.amount?.milliunits ?? 0
                revenue[key, default: .init(productId: product, currency: currency)].refunds += Tally(
                    units: -sale.units, milliunits: -amount)
                refunds.append(.init(sale: sale, refund: refund))
                let day = period.timeZone.date(containing: refund.atMs)
                daily["\(day)\u{0}\(currency)", default: .init(day: day, currency: currency, revenue: 0, refunds: 0)].refunds -= amount
            }
        }
        // Losses are booked in the period they happened (`Finding.lossAtMs`: a refund still granted in its refund's
        // period, not its purchase's; found by a finance user test), so each close books a loss once; a verification
        // backlog is a wait, not money lost or given away: not valued.
        let losses = value(inputs.findings.filter { $0.kind.isLoss && ($0.lossAtMs.map(period.contains) ?? false) }, sales)
        var bridges: [Bridge] = []
        if inputs.sales.contains(where: { $0.beginDate >= period.firstDay && $0.beginDate <= period.lastDay }) {
            bridges.append(.sales(sales, inputs.sales, period: period))
        }
        let months = Bridge.fiscalMonths(of: period)
        let spans = months.map { fiscal.dates(of: $0) }
        if inputs.financial.contains(where: { line in spans.contains { $0.contains(line.startDate) } }) {
            bridges.append(.financial(sales, inputs.financial, period: period, fiscalCalendar: fiscal))
        }
        var report = CloseReport(
            period: period, fiscalMonths: zip(months, spans).map { ($0, $1) }, sales: inPeriod,
            revenue: revenue.values.sorted { ($0.productId, $0.currency) < ($1.productId, $1.currency) },
            refunds: refunds.sorted { ($0.refund.atMs, $0.sale.key) < ($1.refund.atMs, $1.sale.key) }, losses: losses,
            unpriced: inPeriod.filter { $0.pricing == .unpriced },
            totals: totals(revenue.values, losses, inputs, period: period, spans: spans),
            daily: daily.values.sorted { ($0.day, $0.currency) < ($1.day, $1.currency) }, bridges: bridges)
        report.payments = payments(inputs, months: months, spans: spans)
        report.warnings =
            reportWarnings + paymentWarnings(report.payments, months: months)
            + unpaidCurrencies(report.payments, inputs.financial, spans: spans, months: months)
        return report
    }

    /// The payments summary rows of the period's fiscal months (its title names the month: `September, 2014`),
    /// each against the Financial reports' proceeds in its currency.
    static func payments(_ inputs: CloseInputs, months: [FiscalMonth], spans: [ClosedRange<CalendarDate>]) -> [CloseReport.Payment] {
        let names = Set(months.map { "\(CalendarMonthNames.all[$0.calendarMonth - 1]), \($0.calendarYear)" })
        let lines = inputs.payments.filter { names.contains($0.period) }
        var earned: [String: Int64] = [:]
        for line in lines { earned[line.earned.currency, default: 0] += line.earned.milliunits }
        return lines.map { line in
            let proceeds = inputs.financial.filter { l in
                l.extendedPartnerShare.currency == line.earned.currency && spans.contains { $0.contains(l.startDate) }
            }.reduce(Int64(0)) { $0 + $1.extendedPartnerShare.milliunits }
            return CloseReport.Payment(
                line: line, financialProceeds: proceeds, currencyEarned: earned[line.earned.currency],
                converted: convert(line.earned.milliunits + line.withholdingTax.milliunits, rate: line.exchangeRate))
        }
    }

    /// A payments summary row whose `Earned` the Financial reports' proceeds in its currency do not give: none of them
    /// in it (a region's Financial report not given: found by a finance user test, the bridge then showed the whole
    /// region as an unexplained remainder and nothing said why), or a different sum (a report cut or edited).
    /// Per currency (regions sharing one — Americas and Rest of World in USD — are summed: found by a finance retest,
    /// where two USD regions each warned of the other's proceeds).
    static func paymentWarnings(_ payments: [CloseReport.Payment], months: [FiscalMonth]) -> [RunWarning] {
        let named = months.map { "\($0)" }.joined(separator: ", ")
        var seen = Set<String>()
        return payments.filter { $0.earnedVariance != 0 && seen.insert($0.line.earned.currency).inserted }.map { p in
            let currency = p.line.earned.currency
            let regions = payments.filter { $0.line.earned.currency == currency }.map(\.line.region)
            let earned = Money(milliunits: p.currencyEarned, currency: currency)
            let what =
                p.financialProceeds == 0
                ? "no Financial report line of \(named) is in \(currency): \(regions.count == 1 ? "that region's" : "their") Financial "
                    + "report is missing, and Apple's \(currency) proceeds with it (the bridge's remainder, not a difference)"
                : "the Financial reports of \(named) give \(Money(milliunits: p.financialProceeds, currency: currency)) in it "
                    + "(\(Money(milliunits: p.earnedVariance, currency: currency)) \(p.earnedVariance > 0 ? "short" : "over")): a Financial "
                    + "report cut, edited or missing, or one of a region the summary does not list?"
            return RunWarning(
                .reportCoverage,
                "\(p.line.location.file): the payments summary's \(regions.joined(separator: " and ")) earned \(earned) in \(p.line.period); "
                    + what,
                file: p.line.location.file)
        }
    }

    /// Financial proceeds in a currency the payments summary lists no region of, when it lists any (found by a finance
    /// retest: an AUD report's proceeds were left out of what Apple paid, and nothing said so).
    static func unpaidCurrencies(
        _ payments: [CloseReport.Payment], _ financial: [FinancialLine], spans: [ClosedRange<CalendarDate>], months: [FiscalMonth]
    ) -> [RunWarning] {
        guard let summary = payments.first?.line.location.file else { return [] }
        let paid = Set(payments.map(\.line.earned.currency))
        var proceeds: [String: Int64] = [:]
        for l in financial where spans.contains(where: { $0.contains(l.startDate) }) && !paid.contains(l.extendedPartnerShare.currency) {
            proceeds[l.extendedPartnerShare.currency, default: 0] += l.extendedPartnerShare.milliunits
        }
        let named = months.map { "\($0)" }.joined(separator: ", ")
        return proceeds.keys.sorted().map { currency in
            RunWarning(
                .reportCoverage,
                "\(summary): the Financial reports of \(named) give \(Money(milliunits: proceeds[currency]!, currency: currency)), but the "
                    + "payments summary lists no region in \(currency): what Apple paid for it is not on the Payments sheet (a summary "
                    + "of another account, or cut?)", file: summary)
        }
    }

    /// `milliunits` × `rate` (a decimal text, e.g. `0.80030`), exact to the milliunit, rounded half away
    /// from zero; nil when the rate is not a plain decimal or the product overflows.
    static func convert(_ milliunits: Int64, rate: String) -> Int64? {
        let parts = rate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, whole.allSatisfy(\.isASCII), let w = Int64(whole.isEmpty ? "0" : String(whole)),
            w >= 0
        else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 12, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var scale: Int64 = 1
        for _ in fraction { scale *= 10 }
        let (numerator, o1) = w.multipliedReportingOverflow(by: scale)
        let (rateScaled, o2) = numerator.addingReportingOverflow(Int64(fraction.isEmpty ? "0" : fraction)!)
        guard !o1, !o2 else { return nil }
        let product = milliunits.multipliedFullWidth(by: rateScaled)
        let (q, r) = scale.dividingFullWidth(product)
        return abs(r) * 2 >= scale ? q + (milliunits < 0 ? -1 : 1) : q
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
