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
        // The gzipped copy is the same content: skipped as a copy when imported; the other copy's bytes differ (CR LF).
        XCTAssertEqual(duplicates, ["85012345_1026_US.txt"])
        let gzipped = try XCTUnwrap(copies.audit.snapshot.files.first { $0.path.hasSuffix("_GB.txt.gz") })
        XCTAssertEqual(gzipped.status, "skipped")
        XCTAssertTrue(gzipped.note.hasPrefix("same content as "), gzipped.note)
    }

    /// Apple's weekly Summary Sales report is the sum of its days' daily ones: given beside them, each day is counted
    /// once, from the daily reports, and said (found by a finance user test: the week was counted twice, silently).
    /// Given alone, the weekly report counts; beside some of its days only, the days no daily report gives are missing
    /// and said, never doubled.
    func testAWeeklyReportBesideTheDailyOnesIsCountedOnce() throws {
        let week = (5...11).map { "app-store-connect/S_D_85012345_202610\(String(format: "%02d", $0)).txt" }
        let weekly = "app-store-connect/S_W_85012345_20261011.txt"
        let make =
            "head -1 \(week[0]) > \(weekly) && awk -F'\\t' -v OFS='\\t' 'FNR > 1 { $10 = \"10/05/2026\"; $11 = \"10/11/2026\"; print }' "
            + week.joined(separator: " ") + " >> \(weekly)"
        func units(_ r: CloseResult) -> [String: Int64] {
            Dictionary(uniqueKeysWithValues: r.report.totals.filter { $0.currency != "—" }.map { ($0.currency, $0.appleSalesUnits) })
        }
        let plain = try close(try sample(""))
        XCTAssertEqual(units(plain), ["EUR": 462, "GBP": 215, "JPY": 191, "USD": 959])
        let both = try close(try sample(make))
        XCTAssertEqual(units(both), units(plain))
        XCTAssertEqual(both.report.totals.map(\.appleSales), plain.report.totals.map(\.appleSales))
        let said = both.warnings.filter { $0.code == .duplicateReport }
        XCTAssertEqual(said.map { URL(fileURLWithPath: $0.file!).lastPathComponent }, ["S_W_85012345_20261011.txt"])
        XCTAssertTrue(
            said.first?.message.contains(
                "its Summary Sales lines of 2026-10-05..2026-10-11 cover days that a report of a shorter period also gives") ?? false,
            "\(said)")
        // Alone for its week, the weekly report gives what its days' reports gave.
        let alone = try close(try sample(make + " && rm " + week.joined(separator: " ")))
        XCTAssertEqual(units(alone), units(plain))
        XCTAssertEqual(alone.warnings.filter { $0.code == .duplicateReport || $0.code == .reportCoverage }.map(\.message), [])
        // Beside its first day's report only: the other six days are missing, and said.
        let partial = try close(try sample(make + " && rm " + week.dropFirst().joined(separator: " ")))
        XCTAssertEqual(
            partial.warnings.filter { $0.code == .reportCoverage }.map(\.message),
            [
                "Summary Sales lines cover 25 of the 31 days of 2026-10: none for 2026-10-06 to 2026-10-11 (no report given, or no sale "
                    + "that day): Apple's figures for those days are missing from the bridge, not zero"
            ])
        XCTAssertLessThan(units(partial)["EUR"] ?? 0, 462)
    }

    /// A weekly report running over an edge of the period (Monday 09/28 to Sunday 10/04) cannot be split by day: it is
    /// counted in neither month, and both say so (found by a finance user test: October missed its first four days,
    /// unsaid, and September held them; a September of only such a report said no report was given).
    func testAWeeklyReportOverAMonthsEdgeIsCountedInNeither() throws {
        let days = (1...4).map { "app-store-connect/S_D_85012345_202610\(String(format: "%02d", $0)).txt" }
        let weekly = "app-store-connect/S_W_85012345_20261004.txt"
        let make =
            "head -1 \(days[0]) > \(weekly) && awk -F'\\t' -v OFS='\\t' 'FNR > 1 { $10 = \"09/28/2026\"; $11 = \"10/04/2026\"; print }' "
            + days.joined(separator: " ") + " >> \(weekly) && rm " + days.joined(separator: " ")
        let folder = try sample(make)
        let plain = try close(try sample(""))
        let october = try close(folder)
        let edge =
            "S_W_85012345_20261004.txt: its Summary Sales lines of 2026-09-28..2026-10-04 run over an edge of 2026-10 "
            + "(2026-10-01..2026-10-31) and cannot be split by day: not counted; Apple's figures of their days in 2026-10 come "
            + "from daily reports only (a day none gives is named missing)"
        XCTAssertEqual(
            october.warnings.filter { $0.code == .reportCoverage }.map { URL(fileURLWithPath: $0.message).lastPathComponent },
            [
                edge,
                "Summary Sales lines cover 27 of the 31 days of 2026-10: none for 2026-10-01 to 2026-10-04 (no report given, or no sale "
                    + "that day): Apple's figures for those days are missing from the bridge, not zero",
            ])
        let usd = { (r: CloseResult) in r.report.totals.first { $0.currency == "USD" }?.appleSalesUnits }
        XCTAssertLessThan(usd(october) ?? 0, usd(plain) ?? 0)
        let september = try close(folder, "2026-09")
        XCTAssertEqual(september.warnings.filter { $0.code == .noAppleReports }.map(\.message), [])
        XCTAssertEqual(
            september.warnings.filter { $0.code == .reportCoverage }.map { URL(fileURLWithPath: $0.message).lastPathComponent }.first,
            edge.replacingOccurrences(of: "2026-10 (2026-10-01..2026-10-31)", with: "2026-09 (2026-09-01..2026-09-30)")
                .replacingOccurrences(of: "in 2026-10 come", with: "in 2026-09 come"))
        XCTAssertEqual(september.report.totals.map(\.appleSalesUnits).reduce(0, +), 0)
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
