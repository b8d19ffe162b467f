import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// `close` on Apple's real Financial reports and payments summary (fedoco__apple-slicer: fiscal September
/// 2014, CHF and EUR, a return row, a promo-code row; the payments summary in EUR with a JPY withholding
/// tax). The ledger holds no purchase of that month: every Apple unit is in the remainder, Apple's
/// commission is explained from Apple's own rows, and the payments summary is checked against the
/// Financial reports. Every number here was worked out by hand from the files.
final class CloseRealDataTests: XCTestCase {
    nonisolated(unsafe) static var result: CloseResult?
    static let out = TestPaths.scratch("closerealdata")

    func close() throws -> CloseResult {
        if let result = Self.result { return result }
        let period = try AccountingPeriod.parse(
            "2014-09", calendar: .appleFiscal, timeZone: try PeriodTimeZone(parsing: "America/Los_Angeles"))
        let audit = AuditOptions(
            paths: [try TestPaths.realData("fedoco__apple-slicer"), try TestPaths.realData("matisiekpl__appstore-sdk-go")],
            outputDirectory: Self.out)
        let result = try ClosePipeline.run(CloseOptions(audit: audit, period: period))
        Self.result = result
        return result
    }

    func testTheFinancialBridgeExplainsApplesCommissionAndListsTheRest() throws {
        let report = try close().report
        XCTAssertEqual(
            report.fiscalMonths.map { "\($0.month.reportDate) \($0.dates.lowerBound)..\($0.dates.upperBound)" },
            [
                "2014-12 2014-08-31..2014-09-27"
            ])
        XCTAssertEqual(report.bridges.map(\.report), [.financial], "no Summary Sales line of fiscal September 2014")
        let rows = try XCTUnwrap(report.bridges.first).rows.map { row in
            [
                row.productId, row.currency, "\(row.apple.units)", "\(row.apple.milliunits)",
                "\(row.buckets[.commissionTax]?.milliunits ?? 0)",
                "\(row.remainder.units)", "\(row.remainder.milliunits)",
            ]
        }
        XCTAssertEqual(
            rows,
            [
                ["Example App 1", "CHF", "16", "20800", "-11200", "16", "32000"],
                ["Example App 2", "CHF", "5", "3250", "-1750", "5", "5000"],
                ["Example App 3", "CHF", "6", "7800", "-4200", "6", "12000"],
                ["Example App 4", "CHF", "2", "1300", "-700", "2", "2000"],
                // −1 returned (+7,820 of commission back), 2 promo codes at 0, 16 sold: proceeds 182.55, customer price 299.85.
                ["Example App 5", "EUR", "17", "182550", "-117300", "17", "299850"],
                ["Example App 6", "EUR", "2", "24340", "-15640", "2", "39980"],
            ])
        for row in try XCTUnwrap(report.bridges.first).rows {
            XCTAssertEqual(row.explained + row.remainder, row.variance, row.productId)
        }
        XCTAssertEqual(report.totals.map { "\($0.currency) \($0.appleFinancialProceeds)" }, ["CHF 33150", "EUR 206890"])
    }

    /// The payments summary against the Financial reports: CHF and EUR agree; JPY has no Financial report
    /// here; each conversion at Apple's rate gives Apple's proceeds to the milliunit.
    func testThePaymentsSummaryIsCheckedAgainstTheFinancialReports() throws {
        let result = try close()
        // The region without a Financial report is said, not left to the remainder.
        XCTAssertEqual(
            result.warnings.filter { $0.code == .reportCoverage && $0.message.contains("the payments summary's Japan earned JPY 179") }
                .count, 1, "\(result.warnings.map(\.message))")
        let payments = result.report.payments.map { p in
            [
                p.line.earned.currency, "\(p.financialProceeds)", "\(p.earnedVariance)", "\(p.owed)", "\(p.converted ?? -1)",
                "\(p.conversionDifference ?? -1)",
            ]
        }
        XCTAssertEqual(
            payments,
            [
                ["CHF", "33150", "0", "33150", "26530", "0"],  // 33.15 × 0.80030 = 26.529945
                ["EUR", "206890", "0", "206890", "206890", "0"],
                ["JPY", "0", "179000", "142000", "1160", "0"],  // withholding −37; 142 × 0.00817 = 1.16014
            ])
    }

    /// The Payments sheet of close-2014-09.xlsx, read back with openpyxl: exact milliunits in every amount cell.
    func testThePaymentsSheet() throws {
        let result = try close()
        let rows =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1], data_only=True)["Payments"]
                print(json.dumps([[c.value for c in row][:13] for row in ws.iter_rows(min_row=4) if row[0].value]))
                """, args: [result.workbookPath]) as! [[Any]]
        XCTAssertEqual(
            rows.map { $0.map { "\($0)" } },
            [
                ["Switzerland", "CHF", "29", "33150", "33150", "0", "0", "33150", "0.80030", "EUR", "26530", "26530", "0"],
                ["Euro-Zone", "EUR", "19", "206890", "206890", "0", "0", "206890", "1.00000", "EUR", "206890", "206890", "0"],
                ["Japan", "JPY", "2", "0", "179000", "179000", "-37000", "142000", "0.00817", "EUR", "1160", "1160", "0"],
                // What Apple paid into the bank currency in all: 26.530 + 206.890 + 1.160.
                ["Total"] + Array(repeating: "<null>", count: 8) + ["EUR", "234580", "234580", "0"],
            ])
    }

    /// The close tables hold the bridge, read back with Python's sqlite3.
    func testTheCloseTablesHoldTheBridge() throws {
        let result = try close()
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT product_id, currency, apple_units, apple_milliunits, commission_tax_milliunits, "
                    "remainder_units, remainder_milliunits FROM close_bridge WHERE period = '2014-09-apple-fiscal-America_Los_Angeles' AND report = 'Financial' "
                    "ORDER BY product_id").fetchall()))
                """, args: [result.audit.databasePath]) as! [[Any]]
        XCTAssertEqual(rows.count, 6)
        XCTAssertEqual(rows[4].map { "\($0)" }, ["Example App 5", "EUR", "17", "182550", "-117300", "17", "299850"])
    }

    /// The JSON summary: the period's dates, totals per currency, the bridge rows (milliunits).
    func testTheJSONSummary() throws {
        let run = CLIRun([
            "close", "--period", "2014-09", "--calendar", "apple-fiscal", "--tz", "America/Los_Angeles", "--json",
            try TestPaths.realData("fedoco__apple-slicer"), "--out", TestPaths.scratch(),
        ])
        XCTAssertEqual(run.status, 0, run.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let period = try XCTUnwrap(json["period"] as? [String: Any])
        XCTAssertEqual(period["start"] as? String, "2014-08-31")
        XCTAssertEqual(period["end"] as? String, "2014-09-27")
        let totals = try XCTUnwrap(json["totals"] as? [String: [String: Any]])
        XCTAssertEqual(totals["CHF"]?["apple_financial_proceeds_milliunits"] as? Int, 33150)
        let bridges = try XCTUnwrap(json["bridges"] as? [[String: Any]])
        XCTAssertEqual(bridges.map { $0["report"] as? String }, ["Financial"])
        XCTAssertEqual((bridges[0]["rows"] as? [Any])?.count, 6)
    }
}
