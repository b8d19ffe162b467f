import IAPAuditModel

/// What `iap-audit close --period 2026-10 --prices prices.csv` must report on the sample (docs/close.md):
/// the bridge rows to each of Apple's reports, the totals per currency and the unpriced count, computed
/// from the generator's book and the reports it wrote, never by running the tool.
///
/// Readings taken where docs/close.md leaves a choice (the sample's README in the answer key says so too):
/// a purchase's units are its quantity and a price-list estimate is quantity × the listed price; the
/// Financial bridge's fiscal months are Pacific-time days, as Apple's; a remainder lists the in-period
/// purchases of its row Apple could be counting (paid, claimed or unproven; not trials or excluded ones);
/// `estimated_prices` takes the purchases Apple's report books.
struct SampleCloseKey {
    struct Tally: Equatable {
        var units: Int64 = 0
        var milliunits: Int64 = 0
        static func += (a: inout Tally, b: Tally) { a = Tally(units: a.units + b.units, milliunits: a.milliunits + b.milliunits) }
        static prefix func - (a: Tally) -> Tally { Tally(units: -a.units, milliunits: -a.milliunits) }
        var json: SampleJSON { .object([("units", .int(units)), ("milliunits", .int(milliunits))]) }
    }

    struct Row {
        var productId: String
        var currency: String
        var ledger = Tally()
        var apple = Tally()
        var buckets: [String: Tally] = [:]
        /// In-period purchases Apple could be counting: listed when the remainder is not zero.
        var candidates: [String] = []

        var remainder: Tally {
            var r = Tally(units: apple.units - ledger.units, milliunits: apple.milliunits - ledger.milliunits)
            for b in buckets.values { r += -b }
            return r
        }
    }

    static let buckets = [
        "excluded", "trials", "not_proven_paid", "timing_timezone", "timing_fiscal", "refunds", "commission_tax", "estimated_prices",
    ]

    let sales: [Row]
    let financial: [Row]
    /// Currency → measure (`apple_sales`, `gross`, `loss dropped_order confirmed`…) → milliunits or units.
    let totals: [String: [String: Int64]]
    let unpriced: Int

    init(sales ledger: [SampleSale], book: SampleBook, reports: SampleAppleReports, findings: [AnswerKey.Entry]) {
        let october = Set(SampleAppleReports.salesDays)
        let (first, last) = SampleClock.fiscalOctober
        sales = Self.bridge(ledger, timing: "timing_timezone") {
            october.contains(SampleClock.pacificDay($0))
        } apple: { rows in
            for l in reports.salesLines { rows[l.productId, l.currency].apple += Tally(units: l.units, milliunits: l.units * l.unitPrice) }
        }
        financial = Self.bridge(ledger, timing: "timing_fiscal") {
            (first...last).contains(SampleClock.pacificDay($0))
        } apple: { rows in
            for r in reports.financialRows {
                rows[r.productId, r.currency].apple += Tally(units: r.units, milliunits: r.units * r.proceeds)
                rows[r.productId, r.currency].buckets["commission_tax", default: Tally()] += Tally(
                    milliunits: r.units * (r.proceeds - r.unitPrice))
            }
        }
        totals = Self.totals(ledger, book: book, reports: reports, findings: findings)
        unpriced = ledger.filter { $0.inPeriod && $0.amount == nil }.count
    }

    /// Rows by (product, currency), made on first use.
    struct Rows {
        var rows: [String: Row] = [:]
        subscript(product: String, currency: String) -> Row {
            get { rows[product + " " + currency] ?? Row(productId: product, currency: currency) }
            set { rows[product + " " + currency] = newValue }
        }
    }

    /// One bridge: Apple's side from its lines, the ledger's side and the buckets from the sales.
    /// - Parameter books: whether Apple's report books an instant (UTC seconds).
    private static func bridge(
        _ sales: [SampleSale], timing: String, books: (Int64) -> Bool, apple: (inout Rows) -> Void
    ) -> [Row] {
        var rows = Rows()
        apple(&rows)
        for sale in sales {
            let value = Tally(units: sale.value.units, milliunits: sale.value.milliunits)
            // Taken out of the dictionary while it changes: a copy left there would make each append to
            // `candidates` copy the whole array (the generator was quadratic in a row's purchases).
            let key = sale.productId + " " + sale.rowCurrency
            let stored = rows.rows[key] != nil
            var row = rows.rows.removeValue(forKey: key) ?? Row(productId: sale.productId, currency: sale.rowCurrency)
            func add(_ bucket: String, _ t: Tally) { row.buckets[bucket, default: Tally()] += t }
            let booked = books(sale.at)
            if sale.inPeriod { row.ledger += value }
            if sale.saleClass == .paid && !sale.trial {
                for r in sale.refunds where books(r.at) {
                    add("refunds", Tally(units: -sale.quantity, milliunits: -(r.amount ?? 0)))
                    // Apple refunds its price, the ledger the estimate: the difference is the estimate's.
                    if sale.pricing == .estimated, let refunded = r.amount {
                        let total = sale.unitPrice * sale.quantity
                        add("estimated_prices", Tally(milliunits: refunded - (r.percent.map { (total * $0 + 50_000) / 100_000 } ?? total)))
                    }
                }
            }
            if sale.inPeriod || booked {
                switch sale.saleClass {
                case .excluded: if sale.inPeriod { add("excluded", -value) }
                case .claimed, .unproven:
                    if sale.inPeriod {
                        add("not_proven_paid", -value)
                        row.candidates.append(sale.key)
                    }
                case .paid where sale.trial: if sale.inPeriod { add("trials", -value) }
                case .paid:
                    if sale.inPeriod != booked { add(timing, booked ? value : -value) }
                    if booked, sale.pricing == .estimated, let estimate = sale.amount {
                        add("estimated_prices", Tally(milliunits: sale.unitPrice * sale.quantity - estimate))
                    }
                    if sale.inPeriod { row.candidates.append(sale.key) }
                }
            }
            if stored || sale.inPeriod || booked || !row.buckets.isEmpty { rows.rows[key] = row }
        }
        return rows.rows.values.sorted { ($0.productId, $0.currency) < ($1.productId, $1.currency) }
    }

    /// Per currency: Apple's reported sales and proceeds, the ledger's gross, refunds and net, and the
    /// valued problem findings of the close (its window is the period: a dropped order dated outside it is
    /// `outside_window`, semantics.md rule 17).
    private static func totals(_ sales: [SampleSale], book: SampleBook, reports: SampleAppleReports, findings: [AnswerKey.Entry])
        -> [String: [String: Int64]]
    {
        var t: [String: [String: Int64]] = [:]
        func add(_ currency: String, _ measure: String, _ v: Int64) { t[currency, default: [:]][measure, default: 0] += v }
        for l in reports.salesLines {
            add(l.currency, "apple_sales_units", l.units)
            add(l.currency, "apple_sales", l.units * l.unitPrice)
            add(l.currency, "apple_sales_proceeds", l.units * l.proceeds)
        }
        for r in reports.financialRows { add(r.currency, "apple_financial_proceeds", r.units * r.proceeds) }
        for sale in sales where sale.saleClass == .paid {
            if sale.inPeriod { add(sale.rowCurrency, "gross", sale.value.milliunits) }
            for r in sale.refunds where !sale.trial && r.at >= SampleClock.start && r.at < SampleClock.periodEnd {
                add(sale.rowCurrency, "refunds", -(r.amount ?? 0))
            }
        }
        var saleOf: [String: SampleSale] = [:]
        for sale in sales { for id in sale.transactionIds { saleOf[id] = sale } }
        var clientDate: [String: Int64] = [:]
        for c in book.clientPurchases { clientDate[c.transactionId] = min(clientDate[c.transactionId] ?? c.at, c.at) }
        for f in findings {
            // A verification backlog is a wait, not a loss: not valued (docs/close.md).
            guard let kind = FindingKind(rawValue: f.kind), !kind.isInfo, kind != .verificationBacklog, let sale = saleOf[f.transactionId]
            else { continue }
            let dated = clientDate[f.transactionId] ?? sale.at
            if kind == .droppedOrder && (dated < SampleClock.start || dated >= SampleClock.periodEnd) { continue }
            // A refund still granted is the loss of its refund's period (`Finding.lossAtMs`; the sample grants before
            // refunding). The sample's duplicate credits are all credited again in the period.
            if kind == .refundStillGranted, let at = sale.refunds.first?.at, at < SampleClock.start || at >= SampleClock.periodEnd {
                continue
            }
            let amount = kind == .refundStillGranted ? sale.refunds.first?.amount ?? sale.amount : sale.amount
            guard let amount, let currency = sale.currency else { continue }
            let label = kind == .droppedOrder ? "dropped_order \(f.appleConfirmation ?? "claimed")" : kind.rawValue
            add(currency, "loss " + label, amount)
        }
        for currency in t.keys {
            // The purchases of no price (—) have no Apple figure: Apple books no such currency.
            let apple =
                currency == LedgerSale.noPrice
                ? [] : ["apple_sales_units", "apple_sales", "apple_sales_proceeds", "apple_financial_proceeds"]
            for measure in apple + ["gross", "refunds"] { add(currency, measure, 0) }
            add(currency, "net", t[currency]!["gross"]! + t[currency]!["refunds"]!)
        }
        return t
    }

    // MARK: The answer key's `close` member

    func rowJSON(_ r: Row) -> SampleJSON {
        let remainder = r.remainder
        return .object([
            ("product_id", .string(r.productId)), ("currency", .string(r.currency)), ("ledger", r.ledger.json), ("apple", r.apple.json),
            ("buckets", .object(Self.buckets.map { ($0, (r.buckets[$0] ?? Tally()).json) })), ("remainder", remainder.json),
            ("remainder_purchases", .array((remainder == Tally() ? [] : r.candidates.sorted()).map { .string($0) })),
        ])
    }
}

extension SampleCloseKey {
    /// The answer key's `close` member, one bridge row or currency per line.
    func render(payments: SamplePayments, indent: String = "  ") -> String {
        func q(_ s: String) -> String { SampleJSON.string(s).rendered }
        let (first, last) = SampleClock.fiscalOctober
        var out = "{\n"
        out += "\(indent)  \"command\": \"iap-audit close --period 2026-10 --prices sample-data/prices.csv sample-data\",\n"
        out +=
            "\(indent)  \"period\": "
            + SampleJSON.object([
                ("label", .string("2026-10")), ("calendar", .string("gregorian")), ("time_zone", .string("UTC")),
                ("start", .string("2026-10-01")), ("end", .string("2026-10-31")),
                (
                    "fiscal_months",
                    .array([.object([("report_date", .string("2027-01")), ("start", .string(first)), ("end", .string(last))])])
                ),
            ]).rendered + ",\n"
        out += "\(indent)  \"unpriced_purchases\": \(unpriced),\n"
        out += "\(indent)  \"bridges\": {\n"
        for (index, (name, rows)) in [("Summary Sales", sales), ("Financial", financial)].enumerated() {
            out += "\(indent)    \(q(name)): [\n"
            out += rows.map { "\(indent)      " + rowJSON($0).rendered }.joined(separator: ",\n")
            out += "\n\(indent)    ]" + (index == 0 ? "," : "") + "\n"
        }
        out += "\(indent)  },\n"
        out += "\(indent)  \"bucket_totals\": {\n"
        let bucketLines = [("Summary Sales", sales), ("Financial", financial)].map { name, rows in
            let byCurrency = Dictionary(grouping: rows, by: \.currency).sorted { $0.key < $1.key }.map { currency, rows in
                (
                    currency,
                    SampleJSON.object(Self.buckets.map { b in (b, rows.reduce(into: Tally()) { $0 += $1.buckets[b] ?? Tally() }.json) })
                )
            }
            return "\(indent)    \(q(name)): " + SampleJSON.object(byCurrency).rendered
        }
        out += bucketLines.joined(separator: ",\n") + "\n\(indent)  },\n"
        out += "\(indent)  \"totals\": {\n"
        out += totals.keys.sorted().map { currency in
            "\(indent)    \(q(currency)): "
                + SampleJSON.object(totals[currency]!.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }).rendered
        }.joined(separator: ",\n")
        out += "\n\(indent)  },\n"
        out += "\(indent)  \"payments\": [\n"
        out += payments.regions.map { r in
            let rate = SamplePayments.exchangeRates[r.region.currency]!.scaled
            return "\(indent)    "
                + SampleJSON.object([
                    ("region", .string(r.region.name)), ("currency", .string(r.region.currency)), ("units", .int(r.units)),
                    ("earned_milliunits", .int(r.earned)), ("withholding_tax_milliunits", .int(r.withholding)),
                    ("exchange_rate", .string(r.rate)), ("earned_in_usd_milliunits", .int(SamplePayments.convert(r.earned, rate))),
                    ("proceeds_usd_milliunits", .int(r.proceeds)),
                ]).rendered
        }.joined(separator: ",\n")
        out += "\n\(indent)  ]\n"
        out += "\(indent)}"
        return out
    }
}
