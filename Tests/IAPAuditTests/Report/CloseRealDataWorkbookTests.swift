import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReport

/// `close` on App Store Connect's sample reports (fedoco's EU and CH Financial reports with the payments
/// summary, matisiekpl's sales and financial reports): the workbook it writes, read back, and closing the
/// same period twice gives the same bytes.
final class CloseRealDataWorkbookTests: XCTestCase {
    func close(into out: String) throws -> CLIRun {
        CLIRun([
            "close", "--period", "2014-09", "--calendar", "apple-fiscal", "--tz", "America/Los_Angeles",
            try TestPaths.realData("fedoco__apple-slicer"), try TestPaths.realData("matisiekpl__appstore-sdk-go"), "--out", out,
        ])
    }

    func testClosingTwiceGivesTheSameWorkbook() throws {
        let out = TestPaths.scratch("closerealdata")
        let first = try close(into: out)
        XCTAssertEqual(first.status, 0, first.err)
        let path = out + "/close-2014-09-apple-fiscal-America_Los_Angeles.xlsx"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = try close(into: out)
        XCTAssertEqual(second.status, 0, second.err)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "the same period closed twice: the same bytes")

        let read = try CloseWorkbookReader(path: path)
        XCTAssertEqual(read.sheets, CloseWorkbook.sheetNames)
        // Apple's Financial proceeds per currency, as the summary prints them (CHF 33.15, EUR 206.89), and the
        // bridge's walk arrives at them.
        for (currency, proceeds) in [("CHF", 33150), ("EUR", 206_890)] {
            let start = try XCTUnwrap(read.row("KPIs", holding: currency))
            for label in ["Financial: proceeds (Extended Partner Share)", "= Apple Financial: proceeds"] {
                let row = try XCTUnwrap(read.row("KPIs", holding: label, after: start), label)
                XCTAssertEqual(try read.cell("KPIs", "C\(row)")["cached"] as? Int, proceeds, "\(currency) \(label)")
            }
        }
        // No Summary Sales report covers fiscal September 2014: the sheet says so.
        XCTAssertTrue(
            read.cells("Bridge vs Sales").values.contains { ($0["value"] as? String)?.hasPrefix("No daily Summary Sales report") == true })
        // Every warning of the run is on the Cover.
        let cover = Set(read.cells("Cover").values.compactMap { $0["value"] as? String })
        XCTAssertTrue(cover.contains("nothing_imported"))
        XCTAssertTrue(cover.contains("no_config"))
    }
}
