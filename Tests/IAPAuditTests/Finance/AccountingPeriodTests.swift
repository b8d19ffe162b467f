import XCTest

@testable import IAPAuditModel

/// `--period`, `--calendar` and `--tz` of a close: dates and UTC instants, exactly.
final class AccountingPeriodTests: XCTestCase {
    private let pacific = try! PeriodTimeZone(parsing: "America/Los_Angeles")

    private func period(_ text: String, _ calendar: PeriodCalendar, _ zone: PeriodTimeZone = .utc) throws -> AccountingPeriod {
        try AccountingPeriod.parse(text, calendar: calendar, timeZone: zone)
    }

    private func ms(_ iso: String) -> Int64 { Timestamp.parseMs(iso)! }

    /// The table of AccountingPeriod's doc comment, row by row: first day, last day, label, description.
    func testEveryFormInEachCalendar() throws {
        let cases: [(String, PeriodCalendar, String, String, String)] = [
            ("2026-10", .gregorian, "2026-10-01", "2026-10-31", "October 2026, 2026-10-01 to 2026-10-31 (gregorian, UTC)"),
            ("2026-10", .appleFiscal, "2026-09-27", "2026-10-31", "fiscal October 2026, 2026-09-27 to 2026-10-31 (apple-fiscal, UTC)"),
            ("2026-Q1", .gregorian, "2026-01-01", "2026-03-31", "Q1 2026, 2026-01-01 to 2026-03-31 (gregorian, UTC)"),
            ("2026-Q1", .appleFiscal, "2025-09-28", "2025-12-27", "Q1 of FY2026, 2025-09-28 to 2025-12-27 (apple-fiscal, UTC)"),
            ("FY2026-Q1", .appleFiscal, "2025-09-28", "2025-12-27", "Q1 of FY2026, 2025-09-28 to 2025-12-27 (apple-fiscal, UTC)"),
            ("2026-Q4", .gregorian, "2026-10-01", "2026-12-31", "Q4 2026, 2026-10-01 to 2026-12-31 (gregorian, UTC)"),
            ("2026-Q4", .appleFiscal, "2026-06-28", "2026-09-26", "Q4 of FY2026, 2026-06-28 to 2026-09-26 (apple-fiscal, UTC)"),
            ("FY2026", .appleFiscal, "2025-09-28", "2026-09-26", "FY2026, 2025-09-28 to 2026-09-26 (apple-fiscal, UTC)"),
            ("2026", .gregorian, "2026-01-01", "2026-12-31", "2026, 2026-01-01 to 2026-12-31 (gregorian, UTC)"),
            (
                "2026", .appleFiscal, "2025-12-28", "2026-12-26",
                "fiscal January-December 2026, 2025-12-28 to 2026-12-26 (apple-fiscal, UTC)"
            ),
            ("2024-02", .gregorian, "2024-02-01", "2024-02-29", "February 2024, 2024-02-01 to 2024-02-29 (gregorian, UTC)"),
            ("fy2023-q1", .appleFiscal, "2022-09-25", "2022-12-31", "Q1 of FY2023, 2022-09-25 to 2022-12-31 (apple-fiscal, UTC)"),
        ]
        for (text, calendar, first, last, description) in cases {
            let p = try period(text, calendar)
            XCTAssertEqual(p.firstDay, CalendarDate(iso: first), "\(text) \(calendar)")
            XCTAssertEqual(p.lastDay, CalendarDate(iso: last), "\(text) \(calendar)")
            XCTAssertEqual(p.description, description)
            XCTAssertEqual(p.startMs, ms(first + "T00:00:00Z"))
            XCTAssertEqual(p.endMs, ms(last + "T00:00:00Z") + 86_400_000)
        }
        XCTAssertEqual(try period("fy2023-q1", .appleFiscal).label, "2023-Q1")
        XCTAssertEqual(try period("FY2026", .appleFiscal).label, "FY2026")
        XCTAssertEqual(try period("2026-10", .appleFiscal).label, "2026-10")
        XCTAssertEqual(try period("2026", .gregorian).label, "2026")
    }

    /// Pacific time: October 2026 begins at 07:00 UTC (PDT) and ends at 08:00 UTC on 2026-11-01 (PST
    /// from 2026-11-01 02:00); `contains` is start-inclusive, end-exclusive.
    func testInstantsInPacificTime() throws {
        let october = try period("2026-10", .gregorian, pacific)
        XCTAssertEqual(october.startMs, ms("2026-10-01T07:00:00Z"))
        XCTAssertEqual(october.endMs, ms("2026-11-01T07:00:00Z"))
        XCTAssertEqual(october.description, "October 2026, 2026-10-01 to 2026-10-31 (gregorian, America/Los_Angeles)")
        XCTAssertTrue(october.contains(ms("2026-10-01T07:00:00Z")))
        XCTAssertFalse(october.contains(ms("2026-10-01T06:59:59.999Z")))
        XCTAssertTrue(october.contains(ms("2026-11-01T06:59:59.999Z")))
        XCTAssertFalse(october.contains(ms("2026-11-01T07:00:00Z")))
        let november = try period("2026-11", .gregorian, pacific)
        XCTAssertEqual(november.startMs, october.endMs)
        XCTAssertEqual(november.endMs, ms("2026-12-01T08:00:00Z"), "PST after the first Sunday of November")
        let fiscalOctober = try period("2026-10", .appleFiscal, pacific)
        XCTAssertEqual(fiscalOctober.startMs, ms("2026-09-27T07:00:00Z"))
        XCTAssertEqual(fiscalOctober.endMs, ms("2026-11-01T07:00:00Z"))
        XCTAssertEqual(pacific.date(containing: ms("2026-10-01T06:59:59Z")), CalendarDate(iso: "2026-09-30"))
        XCTAssertEqual(pacific.date(containing: ms("2026-10-01T07:00:00Z")), CalendarDate(iso: "2026-10-01"))
        XCTAssertEqual(pacific.offsetSeconds(atMs: ms("2026-01-15T12:00:00Z")), -28_800)
    }

    /// The tz database's Los Angeles and the US rules `Timestamp` reads Apple's Pacific dates with agree
    /// on the start of every day 2007-2040.
    func testPacificMidnightsAgreeWithTimestampsRules() {
        var day = CalendarDate(iso: "2007-01-01")!
        while day < CalendarDate(iso: "2041-01-01")! {
            let local = day.dayNumber * 86_400_000
            XCTAssertEqual(pacific.startMs(of: day), local - Timestamp.losAngelesOffsetMs(localMs: local), "\(day)")
            day = day.adding(days: 1)
        }
    }

    /// A zone whose clocks skip midnight: America/Santiago went from 2022-09-11 00:00 to 01:00 (-04 → -03).
    func testADayWhoseMidnightIsSkippedStartsAtTheChange() throws {
        let santiago = try PeriodTimeZone(parsing: "America/Santiago")
        let day = CalendarDate(iso: "2022-09-11")!
        XCTAssertEqual(santiago.startMs(of: day), ms("2022-09-11T04:00:00Z"))
        XCTAssertEqual(santiago.startMs(of: day.adding(days: 1)), ms("2022-09-12T03:00:00Z"))
        XCTAssertEqual(santiago.date(containing: ms("2022-09-11T04:00:00Z")), day)
        XCTAssertEqual(santiago.date(containing: ms("2022-09-11T03:59:59Z")), day.adding(days: -1))
    }

    /// Dates read from a financial report move a fiscal period's bounds.
    func testFiscalPeriodsUseReportedDates() throws {
        var fiscal = FiscalCalendar()
        let december = FiscalMonth(named: 12, of: 2022)!
        try fiscal.useReportedDates(CalendarDate(iso: "2022-12-04")!...CalendarDate(iso: "2022-12-31")!, for: december)
        let p = try AccountingPeriod.parse("2022-11", calendar: .appleFiscal, fiscalCalendar: fiscal)
        XCTAssertEqual(p.description, "fiscal November 2022, 2022-10-30 to 2022-12-03 (apple-fiscal, UTC)")
        XCTAssertEqual(p.fiscalMonths, [FiscalMonth(named: 11, of: 2022)!])
        XCTAssertEqual(try period("2026-Q1", .appleFiscal).fiscalMonths.map(\.reportDate), ["2026-01", "2026-02", "2026-03"])
        XCTAssertEqual(try period("FY2026", .appleFiscal).fiscalMonths.count, 12)
        XCTAssertEqual(try period("2026", .appleFiscal).fiscalMonths.first?.description, "fiscal January 2026")
        XCTAssertEqual(try period("2026", .gregorian).fiscalMonths, [])
    }

    /// Every parse error is one line naming the accepted forms and what a quarter means.
    func testParseErrorsNameTheAcceptedForms() {
        let gregorianForms =
            "expected YYYY-MM (a month: 2026-10), YYYY-Qn (a calendar quarter: 2026-Q1 = January-March 2026) or YYYY (a year); "
            + "FY<year> needs --calendar apple-fiscal"
        let fiscalForms =
            "expected YYYY-MM (a fiscal month: 2026-10 = fiscal October 2026), YYYY-Qn or FY<year>-Qn (a quarter of the fiscal year: "
            + "2026-Q1 = FY2026-Q1 = fiscal October-December 2025), FY<year> (a fiscal year: FY2026) or YYYY (the fiscal months January-December YYYY)"
        let cases: [(String, PeriodCalendar, String)] = [
            ("october", .gregorian, "--period 'october': " + gregorianForms),
            ("2026-13", .gregorian, "--period: no month 13; " + gregorianForms),
            ("2026-00", .appleFiscal, "--period: no month 0; " + fiscalForms),
            ("2026-Q5", .appleFiscal, "--period: no quarter 5; " + fiscalForms),
            ("2026-10-01", .gregorian, "--period '2026-10-01': " + gregorianForms),
            ("FY2026-10", .appleFiscal, "--period 'FY2026-10': " + fiscalForms),
            (" 2026", .gregorian, "--period ' 2026': " + gregorianForms),
            ("", .appleFiscal, "--period '': " + fiscalForms),
            (
                "FY2026", .gregorian,
                "--period FY2026 is Apple's fiscal year: add --calendar apple-fiscal, or give 2026 for the calendar year"
            ),
            (
                "FY2026-Q1", .gregorian,
                "--period 'FY2026-Q1' is a quarter of Apple's fiscal year: add --calendar apple-fiscal, or give YYYY-Qn for a calendar quarter"
            ),
            ("1900", .gregorian, "--period: year 1900 is outside 1901 to 2199"),
        ]
        for (text, calendar, message) in cases {
            XCTAssertThrowsError(try period(text, calendar), text) { XCTAssertEqual($0 as? PeriodError, PeriodError(message), text) }
        }
        XCTAssertThrowsError(try PeriodCalendar(parsing: "fiscal")) {
            XCTAssertEqual($0 as? PeriodError, PeriodError("--calendar 'fiscal': expected gregorian or apple-fiscal"))
        }
        XCTAssertEqual(try PeriodCalendar(parsing: "apple-fiscal"), .appleFiscal)
        let tzForms = "expected UTC or an IANA time zone name such as America/Los_Angeles (Apple's Sales reports: Pacific time)"
        for text in ["PST", "Mars/Olympus", "utc", "", "GMT+2"] {
            XCTAssertThrowsError(try PeriodTimeZone(parsing: text), text) {
                XCTAssertEqual($0 as? PeriodError, PeriodError("--tz '\(text)': not a time zone this system knows; " + tzForms))
            }
        }
        XCTAssertEqual(try PeriodTimeZone(parsing: "UTC"), .utc)
        XCTAssertEqual(try PeriodTimeZone(parsing: "Etc/UTC").identifier, "UTC")
        XCTAssertEqual(try PeriodTimeZone(parsing: "Europe/Berlin").identifier, "Europe/Berlin")
    }
}
