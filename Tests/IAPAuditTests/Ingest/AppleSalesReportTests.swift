import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel

/// Sales and Trends reports read by header name: any column order, versions with more or fewer columns,
/// every line imported or rejected with `file:line`, never guessed.
final class AppleSalesReportTests: XCTestCase {
    func read(_ lines: [[String]], path: String = "report.txt") -> ImportedRecords {
        FileImporter.read(InputFile(path: path, data: Data((lines.map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n").utf8)))
    }

    /// A version-1_0-like header in another order, with a column this version does not know: read by name.
    func testColumnsAreReadByNameWhateverTheirOrderAndVersion() {
        let file = read(
            [
                [
                    "Units", "Customer Price", "Customer Currency", "Begin Date", "End Date", "Future Column", "SKU", "Developer Proceeds",
                    "Currency of Proceeds", "Country Code", "Product Type Identifier",
                ],
                ["3", "0.99", "USD", "10/05/2020", "10/05/2020", "x", "gems", "0.70", "USD", "US", "IA1"],
                ["-1", "-0.99", "USD", "10/05/2020", "10/05/2020", "x", "gems", "-0.70", "USD", "US", "IA1"],
                ["-1", "0.99", "USD", "10/05/2020", "10/05/2020", "x", "gems", "0.70", "USD", "US", "IA1"],
            ], path: "sales.json")
        XCTAssertEqual(file.kind, .salesReport, "told by the header, not the file's name")
        XCTAssertEqual(file.format, .tsv)
        XCTAssertEqual(file.rejections.map(\.reason), [])
        let rows = file.salesReportLines
        XCTAssertEqual(rows.map(\.sku), ["gems", "gems", "gems"])
        XCTAssertEqual(rows.map(\.units), [3, -1, -1])
        // Per-unit amounts as Apple wrote them; the totals take the sign of Units (a refund is negative).
        XCTAssertEqual(rows.map(\.customerPriceMilliunits), [990, -990, 990])
        XCTAssertEqual(rows.map(\.customerPriceTotalMilliunits), [2_970, -990, -990])
        XCTAssertEqual(rows.map(\.developerProceedsTotalMilliunits), [2_100, -700, -700])
        XCTAssertEqual(rows[0].location.description, "sales.json:2")
        XCTAssertNil(rows[0].orderType, "a column the version lacks is nil")
    }

    static let header = [
        "Provider", "SKU", "Units", "Developer Proceeds", "Begin Date", "End Date", "Customer Currency", "Country Code",
        "Currency of Proceeds", "Customer Price",
    ]

    func row(_ values: [Int: String]) -> [String] {
        var row = ["APPLE", "gems", "2", "0.70", "10/05/2020", "10/05/2020", "USD", "US", "USD", "0.99"]
        for (i, v) in values { row[i] = v }
        return row
    }

    /// Broken lines are rejected one by one with the column and the reason; the good ones are kept.
    func testBrokenLinesAreRejectedLineByLine() {
        var lines = [Self.header, row([:])]
        lines.append([row([:]).joined(separator: "  ")])  // tabs turned into spaces
        lines.append(row([2: "1.5"]))
        lines.append(Array(row([:]).dropLast()))
        lines.append(row([6: "RUBL"]))
        lines.append(row([9: "2,99"]))
        lines.append(row([9: "0.9999"]))
        lines.append(row([4: "13/05/2020"]))
        lines.append(row([4: "02/30/2020"]))
        lines.append(row([5: "10/04/2020"]))
        lines.append(row([2: " "]))
        lines.append(row([8: " "]))
        lines.append(row([7: "USA"]))
        let file = read(lines)
        XCTAssertEqual(file.salesReportLines.map(\.location.line), [2])
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "3: expected 10 tab-separated fields as in the header (line 1), found 1 (tabs turned into spaces?)",
                "4: field 'Units': expected a whole number, found 1.5",
                "5: expected 10 tab-separated fields as in the header (line 1), found 9",
                "6: field 'Customer Currency': expected an ISO 4217 currency code (3 capital letters), found RUBL",
                "7: field 'Customer Price': not a decimal amount: '2,99'",
                "8: field 'Customer Price': more than 3 decimals (finer than a milliunit): '0.9999'",
                "9: field 'Begin Date': no such day: 13/05/2020",
                "10: field 'Begin Date': no such day: 02/30/2020",
                "11: 'End Date' 2020-10-04 is before 'Begin Date' 2020-10-05",
                "12: missing required field 'Units'",
                "13: 'Developer Proceeds' 0.70 has no currency: 'Currency of Proceeds' is empty",
                "14: field 'Country Code': expected an ISO 3166-1 alpha-2 country code (2 capital letters), found USA",
            ])
        XCTAssertEqual(file.recordsIn, 13)
        XCTAssertEqual(file.recordsImported, 1)
    }

    /// A report whose header lost its tabs: every line rejected, the header's saying why.
    func testAHeaderWithoutTabsRejectsEveryLine() {
        let file = FileImporter.read(
            InputFile(
                path: "issue1.txt",
                data: Data(
                    """
                    Provider Provider Country Vendor Identifier Units Royalty Price Begin Date End Date Customer Currency
                    APPLE US 1001 1 1.4 06/13/2010 06/13/2010 USD

                    APPLE US 1001 2 .97 06/13/2010 06/13/2010 SEK
                    """.utf8)))
        XCTAssertEqual(file.kind, .salesReport)
        XCTAssertEqual(file.status, .rejected)
        XCTAssertEqual(file.rejections.map(\.location.line), [1, 2, 4])
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                "a header whose columns are not separated by tabs (tabs turned into spaces, or saved as CSV?): none of the report's "
                    + "lines can be read",
                "the report's header (line 1) is not tab-separated: the columns of this line cannot be told apart",
                "the report's header (line 1) is not tab-separated: the columns of this line cannot be told apart",
            ])
        XCTAssertEqual([file.recordsIn, file.recordsRejected], [3, 3])
    }

    func testAHeaderWithoutARequiredColumnRejectsEveryLine() {
        let file = read([Self.header.filter { $0 != "Customer Currency" }, Array(row([:]).prefix(6) + row([:]).suffix(3))])
        XCTAssertEqual(file.status, .rejected)
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                "the report's header has no 'Customer Currency' column: none of its lines can be read",
                "the report's header (line 1) has no 'Customer Currency' column",
            ])
    }

    /// The legacy layout's names (`Vendor Identifier`, `Royalty Price`, `Royalty Currency`) in their
    /// messages; prices without a leading zero (`.97`) read exactly.
    func testLegacyDailySalesLayout() {
        let header = [
            "Vendor Identifier", "Units", "Royalty Price", "Begin Date", "End Date", "Customer Currency", "Royalty Currency",
            "Customer Price",
        ]
        let file = read([
            header, ["1001", "2", ".97", "06/01/2010", "06/01/2010", "SEK", "EUR", "15"],
            ["1001", "1", "1.4", "06/01/2010", "06/01/2010", "USD", " ", "1.99"],
        ])
        XCTAssertEqual(file.salesReportLines.map(\.layout), [.legacyDailySales])
        XCTAssertEqual(file.salesReportLines.map(\.developerProceedsTotalMilliunits), [1_940])
        XCTAssertEqual(file.salesReportLines.map(\.customerPriceTotalMilliunits), [30_000])
        XCTAssertEqual(file.rejections.map(\.reason), ["'Royalty Price' 1.40 has no currency: 'Royalty Currency' is empty"])
    }

    /// Subscriber report: a refund is `Refund` `Yes` with a negative `Customer Price`; the totals take the
    /// per-unit amount's sign.
    func testSubscriberReportRefund() {
        let header = [
            "Event Date", "App Name", "Subscription Name", "Customer Price", "Customer Currency", "Developer Proceeds",
            "Proceeds Currency", "Country", "Subscriber ID", "Refund", "Purchase Date", "Units",
        ]
        let file = read([
            header, ["2026-10-01", "App", "Pro", "9.99", "EUR", "6.99", "EUR", "DE", "123", " ", " ", "1"],
            ["2026-10-02", "App", "Pro", "-9.99", "EUR", "-6.99", "EUR", "DE", "123", "Yes", "2026-09-20", "1"],
        ])
        XCTAssertEqual(file.kind, .subscriberReport)
        XCTAssertEqual(file.subscriberReportLines.map(\.customerPriceTotalMilliunits), [9_990, -9_990])
        XCTAssertEqual(file.subscriberReportLines.map(\.developerProceedsTotalMilliunits), [6_990, -6_990])
        XCTAssertEqual(file.subscriberReportLines.map(\.purchaseDate), [nil, "2026-09-20"])
        XCTAssertEqual(file.subscriberReportLines.map(\.refund), [nil, "Yes"])
    }

    /// Units × a per-unit amount beyond 2^53 milliunits (the largest a workbook cell holds exactly) is refused, not
    /// stored; so is one beyond 64 bits, never wrapped.
    func testALineTotalOutOfRangeIsRejected() {
        let file = read([
            Self.header, row([2: "9007199254", 9: "1000.00"]), row([2: "9007199255", 9: "1000.00"]),
            row([2: "9007199254740992", 9: "1000.00"]),
        ])
        let limit =
            "is out of range (more than 2^53 = 9007199254740992 milliunits either way: the largest number a workbook cell holds exactly)"
        XCTAssertEqual(
            file.rejections.map(\.reason), ["'Units' × 'Customer Price' \(limit)", "'Units' × 'Developer Proceeds' \(limit)"])
        XCTAssertEqual(file.rejections.map(\.location.line), [3, 4])
        XCTAssertEqual(file.salesReportLines.map(\.customerPriceTotalMilliunits), [9_007_199_254_000_000])
    }
}
