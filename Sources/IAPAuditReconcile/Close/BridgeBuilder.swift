import IAPAuditModel

extension Bridge {
    /// The bridge to the Summary Sales report: Pacific-time days of the period, customer price × units.
    package static func sales(_ sales: [LedgerSale], _ lines: [SalesLine], period: AccountingPeriod) -> Bridge {
        let pacific = PeriodTimeZone.pacific
        let days = period.firstDay...period.lastDay
        let inPacific = { (ms: Int64) in days.contains(pacific.date(containing: ms)) }
        var rows = Rows()
        for line in lines where days.contains(line.beginDate) {
            rows[line.productId, line.customerPrice.currency].apple += Tally(
                units: line.units, milliunits: line.units * line.customerPrice.milliunits)
            rows[line.productId, line.customerPrice.currency].countries.insert(line.countryCode)
        }
        let applePrices = Self.prices(lines.map { ($0.productId, $0.countryCode, $0.customerPrice) })
        Self.ledgerSide(sales, &rows, period: period, applePrices: applePrices, appleBooks: inPacific, timing: .timingTimezone)
        return Bridge(report: .sales, rows: rows.sorted())
    }

    /// The bridge to the Financial reports: the fiscal months the period books, proceeds (Extended Partner
    /// Share) in the partner share currency.
    package static func financial(
        _ sales: [LedgerSale], _ lines: [FinancialLine], period: AccountingPeriod, fiscalCalendar: FiscalCalendar
    ) -> Bridge {
        let months = Self.fiscalMonths(of: period)
        let spans = months.map { fiscalCalendar.dates(of: $0) }
        let pacific = PeriodTimeZone.pacific
        let inFiscal = { (ms: Int64) in
            let day = pacific.date(containing: ms)
            return spans.contains { $0.contains(day) }
        }
        var rows = Rows()
        for line in lines where spans.contains(where: { $0.contains(line.startDate) }) {
            let currency = line.extendedPartnerShare.currency
            rows[line.productId, currency].apple += Tally(units: line.quantity, milliunits: line.extendedPartnerShare.milliunits)
            rows[line.productId, currency].countries.insert(line.countryCode)
            if line.customerPrice.currency == currency {
                rows[line.productId, currency].buckets[.commissionTax, default: Tally()] += Tally(
                    milliunits: line.quantity * (line.partnerShare.milliunits - line.customerPrice.milliunits))
            }
        }
        let applePrices = Self.prices(lines.map { ($0.productId, $0.countryCode, $0.customerPrice) })
        Self.ledgerSide(sales, &rows, period: period, applePrices: applePrices, appleBooks: inFiscal, timing: .timingFiscal)
        return Bridge(report: .financial, rows: rows.sorted())
    }

    /// The fiscal months whose Financial reports a period books: its own (apple-fiscal), else those named
    /// after its calendar months.
    package static func fiscalMonths(of period: AccountingPeriod) -> [FiscalMonth] {
        if period.calendar == .appleFiscal { return period.fiscalMonths }
        var months: [FiscalMonth] = []
        var day = period.firstDay
        while day <= period.lastDay {
            if let month = FiscalMonth(named: day.month, of: day.year), months.last != month { months.append(month) }
            day = day.adding(days: 28)
        }
        if let last = FiscalMonth(named: period.lastDay.month, of: period.lastDay.year), months.last != last { months.append(last) }
        return months
    }

    /// The ledger's side of every row, and the buckets computed from the ledger's records.
    /// - Parameter appleBooks: whether Apple's report books an instant (its days or fiscal months).
    private static func ledgerSide(
        _ sales: [LedgerSale], _ rows: inout Rows, period: AccountingPeriod, applePrices: [PriceKey: Money],
        appleBooks: (Int64) -> Bool, timing: BridgeBucket
    ) {
        for sale in sales {
            guard let productId = sale.productId else { continue }
            let currency = sale.amount?.currency ?? LedgerSale.noPrice
            let value = Tally(units: sale.units, milliunits: sale.isTrial ? 0 : sale.amount?.milliunits ?? 0)
            let inPeriod = sale.purchaseMs.map(period.contains) ?? false
            let booked = sale.purchaseMs.map(appleBooks) ?? false
            // What Apple charges for the units of a purchase priced from the list (the estimate's difference is explained).
            let appleTotal =
                sale.pricing == .estimated
                ? sale.amount.flatMap { e in
                    applePrices[PriceKey(productId, sale.countryCode, e.currency)].map {
                        Money(milliunits: $0.milliunits * sale.units, currency: e.currency)
                    }
                } : nil
            if inPeriod {
                rows[productId, currency].ledger += value
                if let country = sale.countryCode { rows[productId, currency].countries.insert(country) }
            }
            // Refunds Apple books in the period, of purchases of any period (only sales Apple counts).
            if sale.saleClass == .paid && !sale.isTrial {
                for refund in sale.refunds where appleBooks(refund.atMs) {
                    rows[productId, currency].buckets[.refunds, default: Tally()] += Tally(
                        units: -sale.units, milliunits: -(refund.amount?.milliunits ?? 0))
                    // Apple refunds its own price: a purchase priced from the list is refunded at the estimate here, and
                    // the difference is the estimate's, as the sale's (found by a finance user test: a purchase bought and
                    // refunded in the period left −EUR 1.00 unexplained, the sale's difference booked and not its refund's).
                    if let total = appleTotal, let refunded = refund.amount {
                        let appleRefund = refund.milliPercent.map { total.share(milliPercent: $0) } ?? total
                        rows[productId, currency].buckets[.estimatedPrices, default: Tally()] += Tally(
                            milliunits: refunded.milliunits - appleRefund.milliunits)
                    }
                }
            }
            guard inPeriod || booked else { continue }
            var row = rows[productId, currency]
            switch sale.saleClass {
            case .excluded: if inPeriod { row.buckets[.excluded, default: Tally()] += -value }
            case .claimed, .unproven:
                if inPeriod {
                    row.buckets[.notProvenPaid, default: Tally()] += -value
                    row.remainderSales.append(sale.key)
                }
            case .paid:
                if sale.isTrial {
                    if inPeriod { row.buckets[.trials, default: Tally()] += -value }
                    break
                }
                if inPeriod != booked { row.buckets[timing, default: Tally()] += booked ? value : -value }
                if booked, let total = appleTotal, let estimate = sale.amount {
                    row.buckets[.estimatedPrices, default: Tally()] += Tally(milliunits: total.milliunits - estimate.milliunits)
                }
                if inPeriod { row.remainderSales.append(sale.key) }
            }
            rows[productId, currency] = row
        }
        // Only an unexplained remainder needs its sales listed.
        for key in rows.keys where rows.rows[key]!.remainder.isZero { rows.rows[key]!.remainderSales = [] }
    }

    fileprivate struct PriceKey: Hashable {
        var productId: String
        var countryCode: String?
        var currency: String
        init(_ productId: String, _ countryCode: String?, _ currency: String) {
            (self.productId, self.countryCode, self.currency) = (productId, countryCode, currency)
        }
    }

    /// Apple's customer price per unit by product, country and currency, and by product and currency when
    /// all its countries agree (a sale whose country the ledger does not know).
    private static func prices(_ lines: [(productId: String, country: String, price: Money)]) -> [PriceKey: Money] {
        var byCountry: [PriceKey: Money] = [:]
        var byCurrency: [PriceKey: Set<Int64>] = [:]
        for line in lines where line.price.milliunits > 0 {
            byCountry[PriceKey(line.productId, line.country, line.price.currency)] = line.price
            byCurrency[PriceKey(line.productId, nil, line.price.currency), default: []].insert(line.price.milliunits)
        }
        for (key, prices) in byCurrency where prices.count == 1 {
            byCountry[key] = Money(milliunits: prices.first!, currency: key.currency)
        }
        return byCountry
    }

    /// Rows by (product, currency), made on first use.
    fileprivate struct Rows {
        struct Key: Hashable, Comparable {
            var productId: String
            var currency: String
            static func < (a: Key, b: Key) -> Bool { (a.productId, a.currency) < (b.productId, b.currency) }
        }
        var rows: [Key: BridgeRow] = [:]

        var keys: [Key] { Array(rows.keys) }

        subscript(productId: String, currency: String) -> BridgeRow {
            get { rows[Key(productId: productId, currency: currency)] ?? BridgeRow(productId: productId, currency: currency) }
            set { rows[Key(productId: productId, currency: currency)] = newValue }
        }

        func sorted() -> [BridgeRow] { rows.sorted { $0.key < $1.key }.map(\.value) }
    }
}

extension PeriodTimeZone {
    /// Apple's Sales and Trends days: Pacific time.
    package static let pacific = try! PeriodTimeZone(parsing: "America/Los_Angeles")
}
