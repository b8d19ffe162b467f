/// A sale as the ledger knows it (docs/close.md, "Sales in the ledger"): one purchase (semantics.md rule
/// 18) with its product, date, country, amount and class.
package struct LedgerSale: Sendable {
    /// The currency column of purchases without a price: totalled under it in units only, never added to
    /// an amount.
    package static let noPrice = "—"

    /// How much the ledger trusts that Apple was paid.
    package enum Class: String, Sendable {
        /// A production Apple record that proves payment lists it.
        case paid
        /// Listed only by Sandbox, Xcode, LocalTesting, environment-conflict or family-shared records:
        /// never a sale in Apple's reports.
        case excluded
        /// Listed only by records that prove nothing (an untrusted signature, another bundle, an error status).
        case unproven
        /// Only the client reported it.
        case claimed
    }

    /// Where the amount came from.
    package enum Pricing: String, Sendable {
        /// JWS `price` of a verified record: the transaction's total.
        case jws
        /// The price list (`--prices`): an estimate.
        case estimated
        /// No price known: counted in units, never assumed.
        case unpriced
    }

    /// A refund of the sale: when Apple booked it (UTC ms) and how much (the amount × `revocationPercentage`).
    package struct Refund: Sendable {
        package var atMs: Int64
        package var amount: Money?
        package var location: SourceLocation
        /// JWS `revocationPercentage`: the share refunded, thousandths of a percent; nil = the whole amount.
        package var milliPercent: Int64?

        package init(atMs: Int64, amount: Money? = nil, location: SourceLocation, milliPercent: Int64? = nil) {
            (self.atMs, self.amount, self.location, self.milliPercent) = (atMs, amount, location, milliPercent)
        }
    }

    /// The purchase key: `original/line item` for a subscription period, else the original id (a
    /// non-consumable's restores are no sale), else the transaction id.
    package var key: String
    /// The transaction ids of the purchase (sorted).
    package var transactionIds: [String]
    package var productId: String?
    /// Units bought (`quantity`): what Apple's reports count.
    package var units: Int64 = 1
    /// Apple's purchase date (a restored purchase's original one), else the client's `ts`, UTC ms.
    package var purchaseMs: Int64?
    /// ISO 3166-1 alpha-2, from the JWS storefront; nil when unknown.
    package var countryCode: String?
    package var amount: Money?
    package var pricing: Pricing
    package var saleClass: Class
    /// Why an `excluded` sale is excluded (`Sandbox`, `family_shared`, `environment_conflict`…).
    package var exclusion: String?
    /// A free trial: a unit at zero, no sale in Apple's reports.
    package var isTrial: Bool
    package var refunds: [Refund]
    /// The records that list it (or the client reports), sorted.
    package var evidence: [SourceLocation]

    package init(
        key: String, transactionIds: [String], productId: String? = nil, purchaseMs: Int64? = nil, countryCode: String? = nil,
        amount: Money? = nil, pricing: Pricing, saleClass: Class, exclusion: String? = nil, isTrial: Bool, units: Int64 = 1,
        refunds: [Refund], evidence: [SourceLocation]
    ) {
        self.units = units
        (
            self.key, self.transactionIds, self.productId, self.purchaseMs, self.countryCode, self.amount, self.pricing, self.saleClass,
            self.exclusion, self.isTrial, self.refunds, self.evidence
        ) = (key, transactionIds, productId, purchaseMs, countryCode, amount, pricing, saleClass, exclusion, isTrial, refunds, evidence)
    }
}

/// Units and an amount (milliunits of the row's currency) side by side.
package struct Tally: Sendable, Equatable {
    package var units: Int64 = 0
    package var milliunits: Int64 = 0

    package init(units: Int64 = 0, milliunits: Int64 = 0) { (self.units, self.milliunits) = (units, milliunits) }

    package static func + (a: Tally, b: Tally) -> Tally { Tally(units: a.units + b.units, milliunits: a.milliunits + b.milliunits) }
    package static func - (a: Tally, b: Tally) -> Tally { Tally(units: a.units - b.units, milliunits: a.milliunits - b.milliunits) }
    package static prefix func - (a: Tally) -> Tally { Tally(units: -a.units, milliunits: -a.milliunits) }
    package static func += (a: inout Tally, b: Tally) { a = a + b }
    package var isZero: Bool { units == 0 && milliunits == 0 }
}

/// Why the ledger's number and Apple's differ (docs/close.md, "The bridge"): each bucket is what it adds
/// to the ledger's number to approach Apple's.
package enum BridgeBucket: String, CaseIterable, Sendable {
    case excluded
    case trials
    case notProvenPaid = "not_proven_paid"
    case timingTimezone = "timing_timezone"
    case timingFiscal = "timing_fiscal"
    case refunds
    case commissionTax = "commission_tax"
    case estimatedPrices = "estimated_prices"

    /// What the bucket holds, for the workbook's header notes.
    package var meaning: String {
        switch self {
        case .excluded: return "sandbox, Xcode, LocalTesting, environment-conflict and family-shared records: never in Apple's reports"
        case .trials: return "free trials: units at zero, no sale in Apple's reports"
        case .notProvenPaid: return "purchases only the client reported, or listed by records that prove no payment"
        case .timingTimezone:
            return "purchases on the period's edge: in it in Pacific time (Apple's days) but not in the close's time zone, or the reverse"
        case .timingFiscal: return "purchases in the fiscal months but not in the period, or the reverse"
        case .refunds: return "refunds Apple books in the period: one unit back each, the refunded amount"
        case .commissionTax: return "Apple's commission and taxes: customer price − proceeds, from Apple's own rows"
        case .estimatedPrices: return "purchases priced from the price list: Apple's customer price − the estimate"
        }
    }
}

/// One line of the bridge: a product in a currency over the period.
package struct BridgeRow: Sendable {
    package var productId: String
    /// ISO 4217; `—` for the ledger's unpriced purchases (counted in units only).
    package var currency: String
    package var ledger = Tally()
    package var apple = Tally()
    package var buckets: [BridgeBucket: Tally] = [:]
    /// Countries (alpha-2) the row's sales and Apple's lines name.
    package var countries: Set<String> = []
    /// The ledger's purchases behind an unexplained remainder (purchase keys), and what they are.
    package var remainderSales: [String] = []

    package var variance: Tally { apple - ledger }
    package var explained: Tally { buckets.values.reduce(Tally(), +) }
    /// What no bucket explains: variance − Σ buckets (so buckets + remainder = variance exactly).
    package var remainder: Tally { variance - explained }

    package init(
        productId: String, currency: String, buckets: [BridgeBucket: Tally] = [:], countries: Set<String> = [],
        remainderSales: [String] = []
    ) {
        (self.productId, self.currency, self.buckets, self.countries, self.remainderSales) = (
            productId, currency, buckets, countries, remainderSales
        )
    }
}

/// The bridge from the ledger's sales to one of Apple's reports (docs/close.md).
package struct Bridge: Sendable {
    package enum Report: String, Sendable {
        case sales = "Summary Sales"
        case financial = "Financial"
    }

    package var report: Report
    /// Sorted by product, then currency.
    package var rows: [BridgeRow]

    package init(report: Report, rows: [BridgeRow]) {
        (self.report, self.rows) = (report, rows)
    }
}

/// Everything a close says about one period (docs/close.md): the ledger's revenue and refunds, the
/// bridges to Apple's reports, the valued findings. Amounts are milliunits of the named currency.
package struct CloseReport: Sendable {
    /// Revenue of one product in one currency: paid purchases of the period, refunds booked in it.
    package struct Revenue: Sendable {
        package var productId: String
        package var currency: String
        /// Paid purchases dated in the period (trials included, at zero).
        package var sales = Tally()
        /// Of which free trials (units at zero).
        package var trialUnits: Int64 = 0
        /// Of which priced from the price list (an estimate).
        package var estimated = Tally()
        /// Refunds booked in the period (of purchases of any period): units and amount, both negative.
        package var refunds = Tally()
        package var net: Int64 { sales.milliunits + refunds.milliunits }

        package init(productId: String, currency: String, trialUnits: Int64 = 0) {
            (self.productId, self.currency, self.trialUnits) = (productId, currency, trialUnits)
        }
    }

    /// A refund Apple booked in the period.
    package struct RefundLine: Sendable {
        package var sale: LedgerSale
        package var refund: LedgerSale.Refund

        package init(sale: LedgerSale, refund: LedgerSale.Refund) {
            (self.sale, self.refund) = (sale, refund)
        }
    }

    /// A finding with the amount of its purchase (goods given away, money lost or refunded).
    package struct ValuedFinding: Sendable {
        package var finding: Finding
        /// The purchase's amount (the refunded share for a refund still granted); nil when unpriced.
        package var amount: Money?
        package var pricing: LedgerSale.Pricing

        package init(finding: Finding, amount: Money? = nil, pricing: LedgerSale.Pricing) {
            (self.finding, self.amount, self.pricing) = (finding, amount, pricing)
        }

        /// The label it is totalled under (`Totals.losses`): its kind, and a dropped order's confirmation
        /// (`dropped_order confirmed`, `dropped_order claimed`, `sandbox_leak`).
        package var label: String {
            finding.kind == .droppedOrder ? "dropped_order \(finding.appleConfirmation?.rawValue ?? "claimed")" : finding.kind.rawValue
        }
    }

    /// One currency's headline numbers.
    package struct Totals: Sendable {
        package var currency: String
        /// Apple's Summary Sales: units, units × customer price, units × developer proceeds.
        package var appleSalesUnits: Int64 = 0
        package var appleSales: Int64 = 0
        package var appleSalesProceeds: Int64 = 0
        /// Apple's Financial reports: Extended Partner Share (proceeds of settled transactions).
        package var appleFinancialProceeds: Int64 = 0
        /// The ledger: paid purchases of the period, refunds booked in it, net.
        package var gross: Int64 = 0
        package var refunds: Int64 = 0
        package var net: Int64 { gross + refunds }
        /// Valued findings by kind and confirmation (`dropped_order confirmed`, `sandbox_leak`…).
        package var losses: [String: Int64] = [:]

        /// Every measure as table `close_total` holds it (docs/schema.md): `apple_sales_units` (units), the others in
        /// milliunits of `currency`; the losses as `loss <label>`, by label. Apple's figures only where the period has
        /// that report among the inputs: absent is not zero.
        /// - Parameters:
        ///   - appleSales: whether a Summary Sales report of the period is among the inputs (`CloseReport.hasSalesReport`).
        ///   - appleFinancial: whether a Financial report of its fiscal months is (`CloseReport.hasFinancialReport`).
        package func measures(appleSales: Bool, appleFinancial: Bool) -> [(name: String, value: Int64)] {
            var result: [(name: String, value: Int64)] = []
            if appleSales {
                result += [
                    ("apple_sales_units", appleSalesUnits), ("apple_sales", self.appleSales), ("apple_sales_proceeds", appleSalesProceeds),
                ]
            }
            if appleFinancial { result.append(("apple_financial_proceeds", appleFinancialProceeds)) }
            result += [("gross", gross), ("refunds", refunds), ("net", net)]
            for (label, value) in losses.sorted(by: { $0.key < $1.key }) { result.append(("loss \(label)", value)) }
            return result
        }

        package init(
            currency: String, appleSalesUnits: Int64 = 0, appleSales: Int64 = 0, appleSalesProceeds: Int64 = 0,
            appleFinancialProceeds: Int64 = 0, gross: Int64 = 0, refunds: Int64 = 0, losses: [String: Int64] = [:]
        ) {
            (
                self.currency, self.appleSalesUnits, self.appleSales, self.appleSalesProceeds, self.appleFinancialProceeds, self.gross,
                self.refunds, self.losses
            ) = (currency, appleSalesUnits, appleSales, appleSalesProceeds, appleFinancialProceeds, gross, refunds, losses)
        }
    }

    /// The payments summary's row of one region currency against the Financial reports (currency conversion
    /// and withholding tax, docs/close.md): what Apple owes in the region's currency, converted at Apple's
    /// rate, against what it pays in the bank's currency.
    package struct Payment: Sendable {
        package var line: PaymentLine
        /// Σ Extended Partner Share of the Financial report lines in the region's currency for the period.
        package var financialProceeds: Int64
        /// Σ `Earned` of the summary's rows in the region's currency: several regions may share one (Americas, Rest of
        /// World and Latin America are all USD), and the Financial reports are told apart by currency only.
        package var currencyEarned: Int64
        /// The Earned of the regions of this currency − the Financial proceeds in it: 0 when the reports agree.
        package var earnedVariance: Int64 { currencyEarned - financialProceeds }
        /// What Apple owes after withholding tax, in the region's currency.
        package var owed: Int64 { line.earned.milliunits + line.withholdingTax.milliunits }
        /// `owed` × the exchange rate, exact to the milliunit (half away from zero); nil when the rate is
        /// not a decimal.
        package var converted: Int64?
        /// Apple's proceeds in the bank currency − `converted`: Apple's rounding of the conversion.
        package var conversionDifference: Int64? { converted.map { line.proceeds.milliunits - $0 } }

        package init(line: PaymentLine, financialProceeds: Int64, currencyEarned: Int64? = nil, converted: Int64?) {
            (self.line, self.financialProceeds, self.converted) = (line, financialProceeds, converted)
            self.currencyEarned = currencyEarned ?? line.earned.milliunits
        }
    }

    /// A day's revenue and refunds in one currency (the chart).
    package struct Day: Sendable {
        package var day: CalendarDate
        package var currency: String
        package var revenue: Int64
        package var refunds: Int64

        package init(day: CalendarDate, currency: String, revenue: Int64, refunds: Int64) {
            (self.day, self.currency, self.revenue, self.refunds) = (day, currency, revenue, refunds)
        }
    }

    package var period: AccountingPeriod
    /// The fiscal months whose Financial reports the period books, with their dates.
    package var fiscalMonths: [(month: FiscalMonth, dates: ClosedRange<CalendarDate>)]
    /// Every sale of the ledger dated in the period, sorted by date then key.
    package var sales: [LedgerSale]
    package var revenue: [Revenue]
    package var refunds: [RefundLine]
    package var losses: [ValuedFinding]
    /// Sales of the period the ledger has no amount for.
    package var unpriced: [LedgerSale]
    package var totals: [Totals]
    package var daily: [Day]
    /// The bridges to the reports the ledger holds lines of for the period (none without reports).
    package var bridges: [Bridge]
    /// Whether a Summary Sales report of the period is among the inputs (its bridge is made): Apple's sales are
    /// figures, not absent.
    package var hasSalesReport: Bool { bridges.contains { $0.report == .sales } }
    /// Whether a Financial report of the period's fiscal months is among the inputs.
    package var hasFinancialReport: Bool { bridges.contains { $0.report == .financial } }
    /// Whether `t` has Apple's Summary Sales and Financial figures: the period's report is among the inputs, and `t`
    /// is a currency (the purchases of no price, `LedgerSale.noPrice`, have none: Apple books no such currency).
    package func hasAppleFigures(_ t: Totals) -> (sales: Bool, financial: Bool) {
        let priced = t.currency != LedgerSale.noPrice
        return (priced && hasSalesReport, priced && hasFinancialReport)
    }
    /// `totals`' measures as table `close_total` holds them (`Totals.measures`).
    package func measures(_ t: Totals) -> [(name: String, value: Int64)] {
        let apple = hasAppleFigures(t)
        return t.measures(appleSales: apple.sales, appleFinancial: apple.financial)
    }
    /// The payments summary rows of the period's fiscal months, against the Financial reports.
    package var payments: [Payment] = []
    /// What the close says about Apple's reports (copies, gaps, rejected lines) and its own inputs.
    package var warnings: [RunWarning] = []

    package init(
        period: AccountingPeriod, fiscalMonths: [(month: FiscalMonth, dates: ClosedRange<CalendarDate>)], sales: [LedgerSale],
        revenue: [Revenue], refunds: [RefundLine], losses: [ValuedFinding], unpriced: [LedgerSale], totals: [Totals], daily: [Day],
        bridges: [Bridge]
    ) {
        (
            self.period, self.fiscalMonths, self.sales, self.revenue, self.refunds, self.losses, self.unpriced, self.totals, self.daily,
            self.bridges
        ) = (period, fiscalMonths, sales, revenue, refunds, losses, unpriced, totals, daily, bridges)
    }
}
