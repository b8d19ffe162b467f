import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel

/// Financial reports and the payments summary: rows read exactly, and every total Apple states after
/// them checked against the rows (a mismatch is a rejection at the total's `file:line`).
final class AppleFinanceReportTests: XCTestCase {
    static let header = [
        "Start Date", "End Date", "Vendor Identifier", "Quantity", "Partner Share", "Extended Partner Share", "Partner Share Currency",
        "Sales or Return", "Country Of Sale", "Customer Price", "Customer Currency",
    ]

    /// A row: `quantity` units at `share` (customer price 1.99 a unit, or its negation for a return).
    static func row(_ country: String, _ currency: String, _ quantity: Int, _ share: String, _ extended: String) -> [String] {
        [
            "08/30/2026", "09/26/2026", "gems", "\(quantity)", share, extended, currency, quantity < 0 ? "R" : "S", country,
            quantity < 0 ? "-1.99" : "1.99", currency,
        ]
    }

    func read(_ lines: [[String]], path: String = "finance_ZZ.txt") -> ImportedRecords {
        FileImporter.read(InputFile(path: path, data: Data((lines.map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n").utf8)))
    }

    /// The all-regions layout: rows in several currencies, `Total_Rows`, then a summary table by country
    /// and currency, each of its rows checked against the rows of its country and currency.
    func testAllRegionsReportWithItsSummaryTable() {
        let file = read([
            Self.header, Self.row("DE", "EUR", 3, "1.40", "4.20"), Self.row("DE", "EUR", -1, "1.40", "-1.40"),
            Self.row("FR", "EUR", 1, "1.40", "1.40"), Self.row("US", "USD", 2, "1.39", "2.78"), ["Total_Rows", "4"], [],
            ["Country Of Sale", "Partner Share Currency", "Quantity", "Extended Partner Share"], ["DE", "EUR", "2", "2.80"],
            ["FR", "EUR", "1", "1.40"], ["US", "USD", "2", "2.78"],
        ])
        XCTAssertEqual(file.kind, .financialReport)
        XCTAssertEqual(file.rejections.map(\.reason), [])
        XCTAssertEqual(file.financialReportLines.map(\.customerPriceTotalMilliunits), [5_970, -1_990, 1_990, 3_980])
        XCTAssertEqual(file.financialReportTotals.map(\.kind), [.totalRows, .countrySummary, .countrySummary, .countrySummary])
        XCTAssertEqual(file.financialReportTotals.map(\.countryOfSale), [nil, "DE", "FR", "US"])
        XCTAssertEqual(file.financialReportTotals.map(\.amountMilliunits), [nil, 2_800, 1_400, 2_780])
        XCTAssertEqual(file.recordsIn, 8, "4 rows, Total_Rows, 3 summary rows: the summary's header is not a record")
    }

    /// A summary row the rows do not add up to is rejected; the countries and currencies of the rows the
    /// summary leaves out are one rejection at the table's header.
    func testASummaryThatDoesNotAddUp() {
        let file = read([
            Self.header, Self.row("DE", "EUR", 3, "1.40", "4.20"), Self.row("FR", "EUR", 1, "1.40", "1.40"),
            Self.row("US", "USD", 2, "1.39", "2.78"), ["Total_Rows", "3"],
            ["Country Of Sale", "Partner Share Currency", "Quantity", "Extended Partner Share"], ["DE", "EUR", "3", "4.10"],
        ])
        XCTAssertEqual(
            file.rejections.sorted { $0.location.line < $1.location.line }.map { "\($0.location.line): \($0.reason)" },
            [
                "6: the summary table has no row for FR EUR, US USD, which the report's rows hold",
                "7: the summary gives DE EUR Quantity 3 and Extended Partner Share 4.10, but the report's rows of DE in EUR add up to "
                    + "Quantity 3 (sales 3) and 4.20",
            ])
        XCTAssertEqual(file.recordsIn, file.recordsImported + file.rejections.count)
    }

    /// Each trailer line checked: a mismatch names what Apple says and what the rows add up to, and
    /// says when rows above were rejected (why they may not add up).
    func testTrailerLinesThatDoNotAddUp() {
        let file = read([
            Self.header, Self.row("DE", "EUR", 3, "1.40", "4.20"), Self.row("DE", "EUR", 2, "1.40", "2.70"),
            Self.row("DE", "EUR", -1, "1.40", "-1.40"), ["Total_Rows", "4"], ["Total_Amount", "5.50"], ["Total_Units", "4"],
        ])
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "3: 'Extended Partner Share' 2.70 is not 'Quantity' 2 × 'Partner Share' 1.40 = 2.80",
                "5: Total_Rows is 4 but the report has 3 rows: it is incomplete or was edited",
                "6: Total_Amount is 5.50 but the rows' Extended Partner Share add up to 2.80 (1 row above was rejected)",
                "7: Total_Units is 4 but the sales (S) rows' Quantity add up to 3 (1 row above was rejected)",
            ])
    }

    /// A report cut before its totals: one rejection at its header, so it is never taken whole.
    func testAReportCutBeforeItsTotals() {
        let file = read([Self.header, Self.row("DE", "EUR", 3, "1.40", "4.20"), Self.row("DE", "EUR", 1, "1.40", "1.40")])
        XCTAssertEqual(file.financialReportLines.count, 2)
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            ["1: the report ends without its Total_Rows line after 2 rows: it may have been cut short"])
        XCTAssertEqual([file.recordsIn, file.recordsImported], [3, 2])
    }

    func testTotalsOfSeveralCurrenciesAndStrayLines() {
        let file = read([
            Self.header, Self.row("DE", "EUR", 1, "1.40", "1.40"), Self.row("US", "USD", 1, "1.39", "1.39"), ["Total_Rows", "2"],
            ["Total_Amount", "2.79"], Self.row("FR", "EUR", 1, "1.40", "1.40"), ["Total_Units", "2", "extra"],
        ])
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "5: Total_Amount 2.79 cannot be checked: the rows are in several currencies (EUR, USD)",
                "6: a line after the report's totals that is neither a total (Total_Rows, Total_Amount, Total_Units) nor a row of its "
                    + "summary table",
                "7: expected 'Total_Units' and one value separated by a tab, found 3 fields",
            ])
        let bad = read([Self.header, Self.row("DE", "EUR", 1, "1.40", "1.40").enumerated().map { $0.offset == 7 ? "X" : $0.element }])
        XCTAssertEqual(bad.rejections.first?.reason, "field 'Sales or Return': expected S (a sale) or R (a return), found X")
    }

    // MARK: The payments summary

    func payments(_ text: String) -> ImportedRecords {
        FileImporter.read(InputFile(path: "financial_report.csv", data: Data(text.utf8)))
    }

    /// A summary with a `Balance` column, amounts grouping thousands, and a region below the payment
    /// threshold after the empty line (not paid: not in the total).
    func testPaymentsSummaryWithBalanceAndThresholdRows() {
        let file = payments(
            """
            "App Store Connect - Payments and Financial Reports\t(October, 2026)",,,,,,,,,,,,,
            ,,,,,,,,,,,,,
            Region (Currency),Units Sold,Earned,Balance,Pre-Tax Subtotal,Input Tax,Adjustments,Withholding Tax,Total Owed,Exchange Rate,Proceeds,Bank Account Currency,
            Americas (USD),"1,204","8,425.10","0","8,425.10","0","0","0","8,425.10","0.92100","7,759.52","EUR",
            Euro-Zone (EUR),"310","1,999.00","0","1,999.00","0","-10.00","0","1,989.00","1.00000","1,989.00","EUR",
            ,,,,,,,,,,,,,
            Japan (JPY),"3","540","540","0","0","0","0","0","0.00610","0","EUR",
            ,,,,,,,,,,,,,
            ,,,,,,,,,,,"9,748.52" EUR,,
            ,,,,,,,,,,,Paid to SOME BANK -****0001,,
            """)
        XCTAssertEqual(file.kind, .paymentsSummary)
        XCTAssertEqual(file.rejections.map(\.reason), [])
        let lines = file.paymentSummaryLines
        XCTAssertEqual(lines.map(\.kind), [.region, .region, .region, .total, .paidTo])
        XCTAssertEqual(lines.map(\.paid), [true, true, false, nil, nil])
        XCTAssertEqual(lines.map(\.unitsSold), [1_204, 310, 3, nil, nil])
        XCTAssertEqual(lines.map(\.earnedMilliunits), [8_425_100, 1_999_000, 540_000, nil, nil])
        XCTAssertEqual(lines.map(\.balanceMilliunits), [0, 0, 540_000, nil, nil])
        XCTAssertEqual(lines.map(\.adjustmentsMilliunits), [0, -10_000, 0, nil, nil])
        XCTAssertEqual(lines.map(\.proceedsMilliunits), [7_759_520, 1_989_000, 0, 9_748_520, nil])
        XCTAssertTrue(lines.allSatisfy { $0.period == "October, 2026" })
    }

    func testPaymentsSummaryLinesThatCannotBeRead() {
        let file = payments(
            """
            "iTunes Connect - Payments and Financial Reports\t(September, 2014)",,,,,,,,,,,,
            Region (Currency),Units Sold,Earned,Pre-Tax Subtotal,Input Tax,Adjustments,Withholding Tax,Total Owed,Exchange Rate,Proceeds,Bank Account Currency,
            Switzerland,"29","33.15","33.15","0","0","0","33.15","0.80030","26.53","EUR",
            Euro-Zone (EUR),"19","206.89","206.89","0","0","0","206.89","1,0","206.89","EUR",
            Japan (JPY),"2","179","179","0","0","-37","142","0.00817","1.16"
            Euro-Zone (EUR),"19","206.89","206.89","0","0","0","206.89","1.00000","206.89","EUR",
            ,,,,,,,,,,,,
            ,,,,,,,,,,"206.90" EUR,,
            ,,,,,,,,,,Paid to FICTIONAL BANK,,
            ,,,,,,,,,,one,two
            """)
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "3: field 'Region (Currency)': expected a region and its currency in parentheses, found Switzerland",
                "4: field 'Exchange Rate': expected a decimal number, found 1,0",
                "5: expected 12 comma-separated fields as in the header (line 2), found 10",
                "8: the total paid is 206.90 EUR but the paid regions' Proceeds add up to 206.89 EUR",
                "10: a line that is neither a region's row, the total paid nor where it was paid",
            ])
        XCTAssertEqual(file.paymentSummaryLines.map(\.kind), [.region, .paidTo])
        XCTAssertEqual(file.recordsIn, 7)
    }
}
