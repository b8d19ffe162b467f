import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// What a finance user found closing the sample month with real-world inputs: a report given twice, a
/// period the reports cover in part, a report edited by hand, no report at all, losses booked again by
/// the next month's close. Each gives numbers Apple did not report, or silently incomplete ones, unless
/// the close counts copies once and says the rest.
final class CloseReportCheckTests: XCTestCase {
    var sampleData: String { TestPaths.repoRoot + "/sample-data" }

    /// A copy of sample-data with `edit` applied (shell, run in the copy).
    func sample(_ edit: String) throws -> String {
        let copy = TestPaths.scratch() + "/sd"
        try FileManager.default.copyItem(atPath: sampleData, toPath: copy)
        if !edit.isEmpty {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", edit]
            process.currentDirectoryURL = URL(fileURLWithPath: copy)
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, edit)
        }
        return copy
    }

    func close(_ folder: String, _ period: String = "2026-10", calendar: PeriodCalendar = .gregorian, zone: String = "UTC") throws
        -> CloseResult
    {
        let p = try AccountingPeriod.parse(period, calendar: calendar, timeZone: try PeriodTimeZone(parsing: zone))
        let config = try ConfigLoader.load(path: folder + "/config.json")
        return try ClosePipeline.run(
            CloseOptions(
                audit: AuditOptions(paths: [folder], outputDirectory: folder + "-out", config: config), period: p,
                pricesPath: folder + "/prices.csv"))
    }

    func proceeds(_ result: CloseResult, _ currency: String) -> Int64? {
        result.report.totals.first { $0.currency == currency }?.appleFinancialProceeds
    }

    func testAReportGivenTwiceIsCountedOnce() throws {
        let plain = try close(try sample(""))
        let gb = "app-store-connect/85012345_1026_GB.txt"
        let copies = try close(
            try sample(
                "gzip -k -c \(gb) > \(gb).gz && sed 's/$/\\r/' app-store-connect/85012345_1026_US.txt > 'app-store-connect/85012345_1026_US (1).txt'"
            ))
        XCTAssertEqual(proceeds(copies, "GBP"), proceeds(plain, "GBP"))
        XCTAssertEqual(proceeds(copies, "USD"), proceeds(plain, "USD"))
        XCTAssertEqual(proceeds(plain, "GBP"), 2_517_370)
        let duplicates = copies.warnings.filter { $0.code == .duplicateReport }.map { URL(fileURLWithPath: $0.file!).lastPathComponent }
        XCTAssertEqual(duplicates.sorted(), ["85012345_1026_GB.txt.gz", "85012345_1026_US.txt"].sorted())
    }

    func testAFiscalCloseSaysWhichDaysNoSalesReportCovers() throws {
        let result = try close(try sample(""), calendar: .appleFiscal, zone: "America/Los_Angeles")
        let coverage = result.warnings.filter { $0.code == .reportCoverage }.map(\.message)
        XCTAssertEqual(
            coverage,
            [
                "Summary Sales lines cover 31 of the 35 days of 2026-10: none for 2026-09-27 to 2026-09-30 (no report given, or no sale "
                    + "that day): Apple's figures for those days are missing from the bridge, not zero"
            ])
    }

    func testAReportEditedByHandIsSaid() throws {
        let result = try close(try sample("sed -i '9s/3009.57/3109.57/' app-store-connect/85012345_1026_US.txt"))
        let rejected = try XCTUnwrap(result.warnings.first { $0.code == .reportLinesRejected })
        XCTAssertTrue(
            rejected.message.hasSuffix(
                "85012345_1026_US.txt: 3 of its 18 lines were rejected (first, line 9: 'Extended Partner Share' 3109.57 is not "
                    + "'Quantity' 43 × 'Partner Share' 69.99 = 3009.57): Apple's figures from this report are incomplete in the close (a "
                    + "report edited by hand or re-saved by a spreadsheet?); download it again"), rejected.message)
        XCTAssertEqual(URL(fileURLWithPath: rejected.file!).lastPathComponent, "85012345_1026_US.txt")
    }

    func testNoReportIsAbsentNotZero() throws {
        let result = try close(try sample("rm -rf app-store-connect"))
        XCTAssertEqual(
            result.warnings.filter { $0.code == .noAppleReports }.map(\.message),
            [
                "no Summary Sales or Financial report of 2026-10 among the inputs: Apple's figures are absent (not zero) and nothing is "
                    + "bridged; give App Store Connect's reports of the period"
            ])
        XCTAssertEqual(result.report.bridges.count, 0)
    }

    /// A loss is booked in the period it happened: November's close books none of October's.
    func testTheNextMonthsCloseBooksNoneOfThisMonthsLosses() throws {
        let folder = try sample("")
        let october = try close(folder)
        XCTAssertFalse(october.report.losses.isEmpty)
        let november = try close(folder, "2026-11")
        XCTAssertEqual(november.report.losses.map { "\($0.finding.kind.rawValue)/\($0.finding.transactionId)" }, [])
    }
}
