import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// App Store Connect's reports in ../shared/real-data, run through the product (from there, never
/// copied) and read back from audit.sqlite. Every expected total was added up by hand from the files
/// (units, and amounts in milliunits per currency); the trailer lines are checked by the reader.
/// The paths come from `TestPaths.realData`, which throws XCTSkip (one line) when ../shared is absent.
final class AppleReportRealDataTests: XCTestCase {
    static let folders = ["matisiekpl__appstore-sdk-go", "fedoco__apple-slicer", "alexvollmer__itunes-connect"]
    nonisolated(unsafe) static var stored: (result: AuditResult, ledger: LoadedLedger)?

    func run() throws -> (result: AuditResult, ledger: LoadedLedger) {
        if let stored = Self.stored { return stored }
        let out = TestPaths.scratch("apple-reports")
        let result = try AuditPipeline.run(AuditOptions(paths: Self.folders.map(try TestPaths.realData), outputDirectory: out))
        let stored = (result, try AuditStore(path: out + "/audit.sqlite").loadLedger())
        Self.stored = stored
        return stored
    }

    func file(_ relative: String) throws -> FileSummary {
        let path = try TestPaths.realData(relative)
        return try XCTUnwrap(
            try run().result.snapshot.files.first { URL(fileURLWithPath: $0.path).standardizedFileURL.path == path }, relative)
    }

    func lines<T>(_ all: [T], _ relative: String, _ location: (T) -> SourceLocation) -> [T] {
        let path = try? TestPaths.realData(relative)
        return all.filter { URL(fileURLWithPath: location($0).file).standardizedFileURL.path == path }
    }

    /// Sums of `value` by `key`.
    func sums<T>(_ rows: [T], by key: (T) -> String?, _ value: (T) -> Int64) -> [String: Int64] {
        rows.reduce(into: [:]) { $0[key($1) ?? "none", default: 0] += value($1) }
    }

    func testEveryReportIsImportedAsItsKindAndNothingIsReconciled() throws {
        let expected: [String: (kind: String, records: Int, rejected: Int)] = [
            "matisiekpl__appstore-sdk-go/sales.tsv": ("sales_report", 46, 0),
            "matisiekpl__appstore-sdk-go/subscriptions.tsv": ("subscription_report", 49, 0),
            "matisiekpl__appstore-sdk-go/subscriptions-events.tsv": ("subscription_event_report", 49, 0),
            "matisiekpl__appstore-sdk-go/financial.tsv": ("financial_report", 5, 0),
            "fedoco__apple-slicer/45545510_0914_CH.txt": ("financial_report", 7, 0),
            "fedoco__apple-slicer/45545510_0914_EU.txt": ("financial_report", 9, 0),
            "fedoco__apple-slicer/financial_report.csv": ("payments_summary", 5, 0),
            "alexvollmer__itunes-connect/report.txt": ("sales_report", 4, 0),
            "alexvollmer__itunes-connect/report2.txt": ("sales_report", 4, 4),
        ]
        for (relative, e) in expected {
            let f = try file(relative)
            XCTAssertEqual(f.kind, e.kind, relative)
            XCTAssertEqual(f.status, "imported", relative)
            XCTAssertEqual([f.recordsIn, f.recordsRejected], [Int64(e.records), Int64(e.rejected)], relative)
        }
        // Not transaction evidence: no finding, and the run says nothing was audited.
        XCTAssertEqual(try run().result.snapshot.findings.all().count, 0)
        XCTAssertEqual(try run().result.warnings.map(\.code), [.noConfig, .mostlyRejected, .nothingImported])
        // report2.txt: all 4 lines rejected, named with the report's consequence, not the findings'.
        let mostly = try XCTUnwrap(try run().result.warnings.first { $0.code == .mostlyRejected })
        XCTAssertTrue(mostly.message.contains("report2.txt: 4 of its 4 records (100%) were rejected"), mostly.message)
        XCTAssertTrue(
            mostly.message.hasSuffix(
                "what they held is missing from Apple's figures (a report edited by hand or re-saved by a spreadsheet?); download it again"),
            mostly.message)
    }

    /// sales.tsv (Summary Sales): `Developer Proceeds` and `Customer Price` are per unit; the totals are
    /// units × per-unit. Line 21 has 0 units, proceeds 59.80 and a customer price of -85.43: kept as Apple
    /// wrote them, totals 0.
    func testSummarySalesTotals() throws {
        let rows = lines(try run().ledger.salesReportLines, "matisiekpl__appstore-sdk-go/sales.tsv", \.location)
        XCTAssertEqual(rows.count, 46)
        XCTAssertTrue(rows.allSatisfy { $0.layout == .summarySales && $0.beginDate == "2020-10-05" && $0.endDate == "2020-10-05" })
        XCTAssertEqual(rows.reduce(0) { $0 + $1.units }, 716)
        XCTAssertEqual(
            sums(rows, by: \.customerCurrency, \.units),
            ["AED": 1, "EUR": 1, "GBP": 1, "ILS": 1, "INR": 1, "KZT": 17, "MXN": 1, "RUB": 674, "SAR": 1, "USD": 17, "ZAR": 1])
        XCTAssertEqual(
            sums(rows, by: \.customerCurrency, \.customerPriceTotalMilliunits),
            [
                "AED": 0, "EUR": 0, "GBP": 0, "ILS": 0, "INR": 0, "KZT": 8_740_000, "MXN": 119_000, "RUB": 63_169_000, "SAR": 22_990,
                "USD": 4_490, "ZAR": 0,
            ])
        // Free downloads leave `Currency of Proceeds` empty (422 units): their proceeds are zero.
        XCTAssertEqual(
            sums(rows, by: \.proceedsCurrency, \.units),
            ["none": 422, "GBP": 1, "INR": 1, "KZT": 16, "MXN": 1, "RUB": 262, "SAR": 1, "USD": 11, "ZAR": 1])
        XCTAssertEqual(
            sums(rows, by: \.proceedsCurrency, \.developerProceedsTotalMilliunits),
            ["none": 0, "GBP": 0, "INR": 0, "KZT": 6_118_000, "MXN": 71_810, "RUB": 44_218_300, "SAR": 13_990, "USD": 3_150, "ZAR": 0])
        let first = try XCTUnwrap(rows.first { $0.location.line == 2 })
        XCTAssertEqual(
            [first.units, first.developerProceedsMilliunits, first.developerProceedsTotalMilliunits, first.customerPriceMilliunits],
            [12, 209_300, 2_511_600, 299_000])
        XCTAssertEqual([first.subscription, first.period, first.countryCode, first.preservedPricing], ["Renewal", "7 Days", "RU", "Yes"])
        let odd = try XCTUnwrap(rows.first { $0.location.line == 21 })
        XCTAssertEqual(
            [
                odd.units, odd.developerProceedsMilliunits, odd.customerPriceMilliunits, odd.developerProceedsTotalMilliunits,
                odd.customerPriceTotalMilliunits,
            ], [0, 59_800, -85_430, 0, 0])
        XCTAssertEqual(odd.orderType, "Pay As You Go Intro Offer")
    }

    func testSubscriptionAndSubscriptionEventReports() throws {
        let ledger = try run().ledger
        let subscriptions = lines(ledger.subscriptionReportLines, "matisiekpl__appstore-sdk-go/subscriptions.tsv", \.location)
        XCTAssertEqual(subscriptions.count, 49)
        XCTAssertEqual(subscriptions.reduce(0) { $0 + ($1.activeStandardPriceSubscriptions ?? 0) }, 290)
        XCTAssertEqual(subscriptions.reduce(0) { $0 + ($1.billingRetry ?? 0) }, 112)
        XCTAssertEqual(
            sums(subscriptions, by: \.customerCurrency, { $0.activeStandardPriceSubscriptions ?? 0 }),
            ["AUD": 0, "EUR": 1, "GBP": 1, "KZT": 64, "NGN": 0, "PHP": 1, "RUB": 183, "THB": 1, "USD": 38, "ZAR": 1])
        // A version without the offer-code columns: nil, not 0.
        XCTAssertTrue(subscriptions.allSatisfy { $0.freeTrialOfferCodeSubscriptions == nil })
        let first = try XCTUnwrap(subscriptions.first { $0.location.line == 2 })
        XCTAssertEqual([first.customerPriceMilliunits, first.developerProceedsMilliunits], [2_950_000, 2_065_000])
        XCTAssertEqual([first.customerCurrency, first.proceedsCurrency, first.country], ["RUB", "RUB", "RU"])

        let events = lines(ledger.subscriptionEventLines, "matisiekpl__appstore-sdk-go/subscriptions-events.tsv", \.location)
        XCTAssertEqual(events.count, 49)
        XCTAssertEqual(
            sums(events, by: \.event, \.quantity),
            [
                "Billing Retry from Introductory Offer": 4, "Billing Retry from Paid Subscription": 6, "Cancel": 14,
                "Canceled from Billing Retry": 21, "Renew": 24, "Renewal from Billing Retry": 2, "Start Introductory Offer": 46,
                "Subscribe": 2, "Upgrade": 1,
            ])
        let upgrade = try XCTUnwrap(events.first { $0.event == "Upgrade" })
        XCTAssertEqual(
            [upgrade.eventDate, upgrade.originalStartDate, upgrade.previousSubscriptionName, upgrade.previousSubscriptionAppleId],
            ["2020-10-05", "2020-09-14", "mentor.promo.week", "1526299572"])
        XCTAssertEqual(upgrade.consecutivePaidPeriods, 3)
    }

    /// Quantity × Partner Share is each row's Extended Partner Share (checked when read); the trailer
    /// lines are stored once checked. `Total_Units` counts the sales (`S`) rows only: the EU report's
    /// return makes its net Quantity 19, its Total_Units 20.
    func testFinancialReportTotals() throws {
        let ledger = try run().ledger
        let expected: [String: (rows: Int, net: Int64, sales: Int64, currency: String, amount: Int64, customer: Int64)] = [
            "matisiekpl__appstore-sdk-go/financial.tsv": (2, 6, 6, "USD", 34_650, 49_440),
            "fedoco__apple-slicer/45545510_0914_CH.txt": (4, 29, 29, "CHF", 33_150, 51_000),
            "fedoco__apple-slicer/45545510_0914_EU.txt": (6, 19, 20, "EUR", 206_890, 339_830),
        ]
        for (relative, e) in expected {
            let rows = lines(ledger.financialReportLines, relative, \.location)
            XCTAssertEqual(rows.count, e.rows, relative)
            XCTAssertEqual(rows.reduce(0) { $0 + $1.quantity }, e.net, relative)
            XCTAssertEqual(rows.filter { $0.salesOrReturn == "S" }.reduce(0) { $0 + $1.quantity }, e.sales, relative)
            XCTAssertEqual(sums(rows, by: \.partnerShareCurrency, \.extendedPartnerShareMilliunits), [e.currency: e.amount], relative)
            XCTAssertEqual(sums(rows, by: \.customerCurrency, \.customerPriceTotalMilliunits), [e.currency: e.customer], relative)
            let totals = lines(ledger.financialReportTotals, relative, \.location)
            XCTAssertEqual(totals.map(\.kind), [.totalRows, .totalAmount, .totalUnits], relative)
            XCTAssertEqual(totals.map { $0.rows ?? $0.units ?? $0.amountMilliunits }, [Int64(e.rows), e.amount, e.sales], relative)
            XCTAssertEqual(totals[1].currency, e.currency, relative)
        }
        let eu = lines(ledger.financialReportLines, "fedoco__apple-slicer/45545510_0914_EU.txt", \.location)
        XCTAssertTrue(eu.allSatisfy { $0.startDate == "2014-08-31" && $0.endDate == "2014-09-27" }, "fiscal September 2014")
        let refund = try XCTUnwrap(eu.first { $0.salesOrReturn == "R" })
        XCTAssertEqual(
            [
                refund.quantity, refund.partnerShareMilliunits, refund.extendedPartnerShareMilliunits, refund.customerPriceMilliunits,
                refund.customerPriceTotalMilliunits,
            ], [-1, 12_170, -12_170, -19_990, -19_990])
        XCTAssertEqual(eu.first { $0.promoCode == "CR" }?.extendedPartnerShareMilliunits, 0)
    }

    /// financial_report.csv: three regions paid in EUR, the JPY one after 37 JPY withheld; the total line
    /// (`"234.58" EUR`) is the paid Proceeds added up. Its Euro-Zone Units Sold (19) is the EU report's
    /// net Quantity, not that report's Total_Units (20).
    func testPaymentsSummary() throws {
        let all = lines(try run().ledger.paymentSummaryLines, "fedoco__apple-slicer/financial_report.csv", \.location)
        XCTAssertEqual(all.map(\.kind), [.region, .region, .region, .total, .paidTo])
        XCTAssertTrue(all.allSatisfy { $0.period == "September, 2014" })
        let regions = all.filter { $0.kind == .region }
        XCTAssertEqual(regions.map(\.region), ["Switzerland", "Euro-Zone", "Japan"])
        XCTAssertEqual(regions.map(\.currency), ["CHF", "EUR", "JPY"])
        XCTAssertEqual(regions.map(\.unitsSold), [29, 19, 2])
        XCTAssertEqual(regions.map(\.earnedMilliunits), [33_150, 206_890, 179_000])
        XCTAssertEqual(regions.map(\.withholdingTaxMilliunits), [0, 0, -37_000])
        XCTAssertEqual(regions.map(\.totalOwedMilliunits), [33_150, 206_890, 142_000])
        XCTAssertEqual(regions.map(\.exchangeRate), ["0.80030", "1.00000", "0.00817"])
        XCTAssertEqual(regions.map(\.proceedsMilliunits), [26_530, 206_890, 1_160])
        XCTAssertTrue(regions.allSatisfy { $0.bankCurrency == "EUR" && $0.paid == true && $0.balanceMilliunits == nil })
        XCTAssertEqual([all[3].proceedsMilliunits, all[3].bankCurrency], [234_580, "EUR"] as [AnyHashable?])
        XCTAssertEqual(all[4].paidTo, "Paid to FICTIONAL BANK -****1299")
    }

    /// report.txt (2009): free downloads and updates, Royalty Price 0. report2.txt (2010) is a fixture its
    /// author edited: every row has a column fewer than the header (26 of 27; the last 20), so each is
    /// rejected rather than read shifted (its Apple Identifier would be read as the price).
    func testLegacyDailySalesReports() throws {
        let (result, ledger) = try run()
        let rows = lines(ledger.salesReportLines, "alexvollmer__itunes-connect/report.txt", \.location)
        XCTAssertEqual(rows.count, 4)
        XCTAssertTrue(rows.allSatisfy { $0.layout == .legacyDailySales && $0.beginDate == "2009-08-31" && $0.sku == "1234" })
        XCTAssertEqual(sums(rows, by: \.customerCurrency, \.units), ["USD": 5, "GBP": 1])
        XCTAssertEqual(sums(rows, by: \.productTypeIdentifier, \.units), ["1": 1, "7": 5])
        XCTAssertTrue(rows.allSatisfy { $0.developerProceedsTotalMilliunits == 0 && $0.customerPriceTotalMilliunits == 0 })
        XCTAssertEqual(rows.map(\.developer), ["Evri", "Evri", "Evri", "Evri"], "`Artist / Show` in the legacy layout")
        let rejected = try result.snapshot.rejections.all().filter { $0.location.file.hasSuffix("report2.txt") }
        XCTAssertEqual(rejected.map(\.location.line), [2, 3, 4, 5])
        XCTAssertEqual(
            rejected.map(\.reason),
            ["26", "26", "26", "20"].map { "expected 27 tab-separated fields as in the header (line 1), found \($0)" })
    }
}
