import Foundation

@testable import IAPAuditModel
@testable import IAPAuditReport

/// A small close made by hand (not by `CloseBuilder`): fiscal October 2026 in Los Angeles, four
/// currencies with 0, 2 and 3 decimals (JPY, USD and EUR, KWD), a prorated refund finer than a cent, a
/// refund of an earlier purchase (a negative net), both bridges with buckets and remainders, losses of
/// every Apple confirmation and one without a price, unpriced purchases, days of revenue and refunds.
/// Its numbers agree with each other as `CloseBuilder`'s would, so the KPIs' formulas can be checked
/// against `totals`.
enum CloseReportFixture {
    static let gems = "com.example.gems60"
    static let premium = "com.example.premium"
    static let pro = "com.example.pro.monthly"

    static func ms(_ day: String, hour: Int = 12) -> Int64 {
        CalendarDate(iso: day)!.dayNumber * 86_400_000 + Int64(hour) * 3_600_000
    }

    static func sale(
        _ key: String, _ product: String, _ day: String, _ amount: Money?, pricing: LedgerSale.Pricing = .jws,
        saleClass: LedgerSale.Class = .paid, country: String? = "US"
    ) -> LedgerSale {
        LedgerSale(
            key: key, transactionIds: [key], productId: product, purchaseMs: ms(day), countryCode: country, amount: amount,
            pricing: amount == nil ? .unpriced : pricing, saleClass: saleClass, isTrial: false, refunds: [],
            evidence: [SourceLocation(file: "apple/jws.jsonl", line: Int(key.suffix(2))!)])
    }

    static func usd(_ milliunits: Int64) -> Money { Money(milliunits: milliunits, currency: "USD") }

    static func report() throws -> CloseReport {
        let period = try AccountingPeriod(
            .month(year: 2026, month: 10), calendar: .appleFiscal, timeZone: try PeriodTimeZone(parsing: "America/Los_Angeles"))
        let october = FiscalMonth(named: 10, of: 2026)!
        let sales = [
            sale("2000001", gems, "2026-10-02", usd(4990)),
            sale("2000002", gems, "2026-10-05", usd(4990)),
            sale("2000003", premium, "2026-10-05", usd(9990), pricing: .estimated),
            sale("2000004", gems, "2026-10-10", Money(milliunits: 800_000, currency: "JPY"), country: "JP"),
            sale("3000005", premium, "2026-10-12", nil),
            sale("4000006", premium, "2026-10-14", nil, saleClass: .claimed, country: nil),
        ]
        var revenue = [
            CloseReport.Revenue(productId: gems, currency: "JPY"), CloseReport.Revenue(productId: gems, currency: "USD"),
            CloseReport.Revenue(productId: premium, currency: "EUR"),
            CloseReport.Revenue(productId: premium, currency: "USD", trialUnits: 1),
            CloseReport.Revenue(productId: premium, currency: "—"), CloseReport.Revenue(productId: pro, currency: "KWD"),
        ]
        revenue[0].sales = Tally(units: 1, milliunits: 800_000)
        revenue[1].sales = Tally(units: 2, milliunits: 9980)
        revenue[1].refunds = Tally(units: -1, milliunits: -624)  // 12.5 % of USD 4.99: USD 0.624
        revenue[2].refunds = Tally(units: -1, milliunits: -10990)  // a purchase of September
        revenue[3].sales = Tally(units: 2, milliunits: 9990)
        revenue[3].estimated = Tally(units: 1, milliunits: 9990)
        revenue[4].sales = Tally(units: 1, milliunits: 0)
        revenue[5].sales = Tally(units: 1, milliunits: 1250)

        let september = sale("1000007", premium, "2026-09-20", Money(milliunits: 10990, currency: "EUR"), country: "DE")
        let refunds = [
            CloseReport.RefundLine(
                sale: sales[0],
                refund: .init(atMs: ms("2026-10-20"), amount: usd(624), location: SourceLocation(file: "apple/n.jsonl", line: 3))),
            CloseReport.RefundLine(
                sale: september,
                refund: .init(
                    atMs: ms("2026-10-15"), amount: Money(milliunits: 10990, currency: "EUR"),
                    location: SourceLocation(file: "apple/n.jsonl", line: 9))),
        ]
        func finding(_ kind: FindingKind, _ id: String, _ confirmation: AppleConfirmation? = nil) -> Finding {
            Finding(
                kind: kind, reason: "test", transactionId: id, productId: gems, userIds: ["u-\(id.suffix(1))"],
                firstSeenMs: ms("2026-10-02"),
                detail: "planted \(kind.rawValue)", appleConfirmation: confirmation)
        }
        let losses = [
            CloseReport.ValuedFinding(finding: finding(.droppedOrder, "2000001", .confirmed), amount: usd(4990), pricing: .jws),
            CloseReport.ValuedFinding(finding: finding(.droppedOrder, "2000002", .refunded), amount: usd(4990), pricing: .jws),
            CloseReport.ValuedFinding(finding: finding(.droppedOrder, "2000003", .claimed), amount: usd(9990), pricing: .estimated),
            CloseReport.ValuedFinding(
                finding: finding(.duplicateCredit, "2000004"), amount: Money(milliunits: 800_000, currency: "JPY"), pricing: .jws),
            CloseReport.ValuedFinding(finding: finding(.sandboxLeak, "2000009"), amount: usd(4990), pricing: .jws),
            CloseReport.ValuedFinding(finding: finding(.droppedOrder, "3000005", .claimed), amount: nil, pricing: .unpriced),
        ]
        let totals = [
            CloseReport.Totals(currency: "EUR", appleFinancialProceeds: -7690, refunds: -10990),
            CloseReport.Totals(
                currency: "JPY", appleSalesUnits: 1, appleSales: 800_000, appleSalesProceeds: 560_000, appleFinancialProceeds: 560_000,
                gross: 800_000, losses: ["duplicate_credit": 800_000]),
            CloseReport.Totals(currency: "KWD", appleSalesUnits: 2, appleSales: 2500, appleSalesProceeds: 1750, gross: 1250),
            CloseReport.Totals(
                currency: "USD", appleSalesUnits: 2, appleSales: 15480, appleSalesProceeds: 10836, appleFinancialProceeds: 6986,
                gross: 19970, refunds: -624,
                losses: [
                    "dropped_order confirmed": 4990, "dropped_order refunded": 4990, "dropped_order claimed": 9990, "sandbox_leak": 4990,
                ]),
        ]
        let daily = [
            CloseReport.Day(day: CalendarDate(iso: "2026-10-02")!, currency: "USD", revenue: 4990, refunds: 0),
            CloseReport.Day(day: CalendarDate(iso: "2026-10-03")!, currency: "KWD", revenue: 1250, refunds: 0),
            CloseReport.Day(day: CalendarDate(iso: "2026-10-05")!, currency: "USD", revenue: 14980, refunds: 0),
            CloseReport.Day(day: CalendarDate(iso: "2026-10-10")!, currency: "JPY", revenue: 800_000, refunds: 0),
            CloseReport.Day(day: CalendarDate(iso: "2026-10-15")!, currency: "EUR", revenue: 0, refunds: -10990),
            CloseReport.Day(day: CalendarDate(iso: "2026-10-20")!, currency: "USD", revenue: 0, refunds: -624),
        ]
        return CloseReport(
            period: period, fiscalMonths: [(october, FiscalCalendar().dates(of: october))], sales: sales, revenue: revenue,
            refunds: refunds, losses: losses, unpriced: [sales[4], sales[5]], totals: totals, daily: daily,
            bridges: [salesBridge(), financialBridge()])
    }

    static func row(
        _ product: String, _ currency: String, ledger: Tally, apple: Tally, _ buckets: [BridgeBucket: Tally] = [:],
        countries: Set<String> = ["US"], remainder: [String] = []
    ) -> BridgeRow {
        var row = BridgeRow(productId: product, currency: currency, buckets: buckets, countries: countries, remainderSales: remainder)
        (row.ledger, row.apple) = (ledger, apple)
        return row
    }

    /// Summary Sales: JPY matches; USD gems has a sandbox purchase, a refund and an unexplained USD −4.366;
    /// USD premium a trial and an estimate USD 0.50 under Apple's price; KWD one unit Apple counts that the
    /// ledger lacks; the unpriced premium purchase one unit Apple does not count.
    static func salesBridge() -> Bridge {
        Bridge(
            report: .sales,
            rows: [
                row(
                    gems, "JPY", ledger: Tally(units: 1, milliunits: 800_000), apple: Tally(units: 1, milliunits: 800_000),
                    countries: ["JP"]),
                row(
                    gems, "USD", ledger: Tally(units: 3, milliunits: 14970), apple: Tally(units: 1, milliunits: 4990),
                    [.excluded: Tally(units: -1, milliunits: -4990), .refunds: Tally(units: -1, milliunits: -624)], remainder: ["2000002"]),
                row(
                    premium, "USD", ledger: Tally(units: 2, milliunits: 9990), apple: Tally(units: 1, milliunits: 10490),
                    [.trials: Tally(units: -1), .estimatedPrices: Tally(milliunits: 500)]),
                row(premium, "—", ledger: Tally(units: 1), apple: Tally(), countries: [], remainder: ["3000005"]),
                row(pro, "KWD", ledger: Tally(units: 1, milliunits: 1250), apple: Tally(units: 2, milliunits: 2500), countries: ["KW"]),
            ])
    }

    /// Financial: proceeds; Apple's commission explains the USD and JPY differences, a refund the EUR one.
    static func financialBridge() -> Bridge {
        Bridge(
            report: .financial,
            rows: [
                row(
                    gems, "JPY", ledger: Tally(units: 1, milliunits: 800_000), apple: Tally(units: 1, milliunits: 560_000),
                    [.commissionTax: Tally(milliunits: -240_000)], countries: ["JP"]),
                row(
                    gems, "USD", ledger: Tally(units: 3, milliunits: 14970), apple: Tally(units: 2, milliunits: 6986),
                    [.excluded: Tally(units: -1, milliunits: -4990), .commissionTax: Tally(milliunits: -2994)]),
                row(
                    premium, "EUR", ledger: Tally(), apple: Tally(units: -1, milliunits: -7690),
                    [.refunds: Tally(units: -1, milliunits: -10990), .commissionTax: Tally(milliunits: 3300)], countries: ["DE"]),
            ])
    }

    static let files = [
        FileSummary(
            path: "apple/jws.jsonl", sha256: String(repeating: "ab", count: 32), bytes: 100, kind: "verify_response", format: "jsonl",
            status: "imported", note: "", recordsIn: 12, recordsImported: 11, recordsRejected: 1),
        FileSummary(
            path: "reports/S_D_2026-10.txt", sha256: String(repeating: "cd", count: 32), bytes: 100, kind: "sales_report", format: "tsv",
            status: "imported", note: "", recordsIn: 40, recordsImported: 40, recordsRejected: 0),
    ]

    static let warnings = [
        RunWarning(.noServerLog, "no server-log record among the inputs: every purchase shows as never credited"),
        RunWarning(.unpricedPurchases, "2 purchase(s) of 2026-10 have no price", file: "prices.csv"),
    ]

    static func workbook() throws -> ReportWorkbook {
        CloseWorkbook.build(
            try report(), files: files, parameters: ["as_of": "2026-11-01T00:00:00Z", "tool_version": "test"], warnings: warnings,
            priceRejections: [Rejection(location: SourceLocation(file: "prices.csv", line: 4), reason: "bad price", rawText: "x")])
    }
}
