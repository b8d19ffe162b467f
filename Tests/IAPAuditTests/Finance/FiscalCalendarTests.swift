import XCTest

@testable import IAPAuditModel

/// Apple's fiscal calendar computed from its rule (FINANCE.md "Apple's fiscal calendar").
final class FiscalCalendarTests: XCTestCase {
    private func date(_ text: String) -> CalendarDate { CalendarDate(iso: text)! }

    /// Every row of FINANCE.md's table: fiscal month, reportDate, Start, End, weeks.
    func testEveryRowOfFinanceTable() {
        let rows: [(name: (Int, Int), reportDate: String, start: String, end: String, weeks: Int)] = [
            ((10, 2023), "2024-01", "2023-10-01", "2023-11-04", 5), ((11, 2023), "2024-02", "2023-11-05", "2023-12-02", 4),
            ((12, 2023), "2024-03", "2023-12-03", "2023-12-30", 4), ((1, 2024), "2024-04", "2023-12-31", "2024-02-03", 5),
            ((7, 2024), "2024-10", "2024-06-30", "2024-08-03", 5), ((9, 2024), "2024-12", "2024-09-01", "2024-09-28", 4),
            ((10, 2024), "2025-01", "2024-09-29", "2024-11-02", 5), ((1, 2025), "2025-04", "2024-12-29", "2025-02-01", 5),
            ((6, 2025), "2025-09", "2025-06-01", "2025-06-28", 4), ((9, 2025), "2025-12", "2025-08-31", "2025-09-27", 4),
            ((10, 2025), "2026-01", "2025-09-28", "2025-11-01", 5), ((1, 2026), "2026-04", "2025-12-28", "2026-01-31", 5),
            ((9, 2026), "2026-12", "2026-08-30", "2026-09-26", 4),
        ]
        let calendar = FiscalCalendar()
        for row in rows {
            let month = FiscalMonth(named: row.name.0, of: row.name.1)!
            XCTAssertEqual(month.reportDate, row.reportDate, "\(month)")
            XCTAssertEqual(FiscalMonth(reportDate: row.reportDate), month, row.reportDate)
            XCTAssertEqual(calendar.dates(of: month), date(row.start)...date(row.end), "\(month)")
            XCTAssertEqual(FiscalCalendar.weeksByRule(of: month), row.weeks, "\(month)")
            XCTAssertEqual(calendar.fiscalMonth(containing: date(row.start)), month)
            XCTAssertEqual(calendar.fiscalMonth(containing: date(row.end)), month)
        }
    }

    func testReportDateIsTheFiscalPeriodNumber() {
        let january = FiscalMonth(reportDate: "2025-04")!
        XCTAssertEqual(
            [january.fiscalYear, january.number, january.calendarMonth, january.calendarYear, january.quarter], [2025, 4, 1, 2025, 2])
        XCTAssertEqual(january.description, "fiscal January 2025")
        XCTAssertEqual(FiscalMonth(named: 1, of: 2025)?.reportDate, "2025-04")
        XCTAssertEqual(FiscalMonth(named: 10, of: 2024)?.reportDate, "2025-01")
        XCTAssertEqual(FiscalMonth(named: 9, of: 2025)?.reportDate, "2025-12")
        XCTAssertEqual(FiscalMonth(reportDate: "2025-01")?.description, "fiscal October 2024")
        for bad in ["2025-13", "2025-00", "2025-4", "2025/04", "25-04", "2025-04 ", "-025-04", "2025-+4", ""] {
            XCTAssertNil(FiscalMonth(reportDate: bad), bad)
        }
        XCTAssertEqual(FiscalMonth(named: 12, of: 2025)?.next, FiscalMonth(named: 1, of: 2026))
        XCTAssertEqual(FiscalMonth(named: 10, of: 2025)?.previous, FiscalMonth(named: 9, of: 2025))
        XCTAssertEqual(FiscalMonth(named: 9, of: 2025)?.next, FiscalMonth(fiscalYear: 2026, number: 1))
    }

    /// FY2023: 53 weeks, 2022-09-25 to 2023-09-30; Q1 has 14 weeks (Apple's 10-K) and fiscal December
    /// holds the extra week.
    func testFY2023Has53WeeksAndTheExtraWeekInFiscalDecember() {
        XCTAssertEqual(FiscalCalendar.weeks(inFiscalYear: 2023), 53)
        let calendar = FiscalCalendar()
        XCTAssertEqual(calendar.dates(ofFiscalYear: 2023), date("2022-09-25")...date("2023-09-30"))
        XCTAssertEqual(calendar.dates(ofQuarter: 1, fiscalYear: 2023), date("2022-09-25")...date("2022-12-31"))
        XCTAssertEqual(calendar.dates(ofQuarter: 1, fiscalYear: 2023).days, 14 * 7)
        // The 10-Qs of FY2023 close Q2 on 2023-04-01 and Q3 on 2023-07-01.
        XCTAssertEqual(calendar.dates(ofQuarter: 2, fiscalYear: 2023), date("2023-01-01")...date("2023-04-01"))
        XCTAssertEqual(calendar.dates(ofQuarter: 3, fiscalYear: 2023), date("2023-04-02")...date("2023-07-01"))
        XCTAssertEqual(calendar.dates(ofQuarter: 4, fiscalYear: 2023), date("2023-07-02")...date("2023-09-30"))
        let months = (1...12).map { calendar.dates(of: FiscalMonth(fiscalYear: 2023, number: $0)!) }
        XCTAssertEqual(
            months.map(\.text),
            [
                "2022-09-25 to 2022-10-29", "2022-10-30 to 2022-11-26", "2022-11-27 to 2022-12-31", "2023-01-01 to 2023-02-04",
                "2023-02-05 to 2023-03-04", "2023-03-05 to 2023-04-01", "2023-04-02 to 2023-05-06", "2023-05-07 to 2023-06-03",
                "2023-06-04 to 2023-07-01", "2023-07-02 to 2023-08-05", "2023-08-06 to 2023-09-02", "2023-09-03 to 2023-09-30",
            ])
        XCTAssertEqual(months.map { Int($0.days / 7) }, [5, 4, 5, 5, 4, 4, 5, 4, 4, 5, 4, 4])
        // FY2017, the 53-week year before: fiscal December 2016 is 2016-11-27 to 2016-12-31, as Apple published it.
        XCTAssertEqual(calendar.dates(of: FiscalMonth(named: 12, of: 2016)!), date("2016-11-27")...date("2016-12-31"))
    }

    /// FY2024 starts on 2023-10-01, the day after FY2023's last Saturday of September, not on the
    /// "last Sunday of September" (2023-09-24).
    func testFY2024StartsTheDayAfterFY2023Ends() {
        XCTAssertEqual(FiscalCalendar.firstDay(ofFiscalYear: 2024), date("2023-10-01"))
        XCTAssertEqual(FiscalCalendar.lastDay(ofFiscalYear: 2024), date("2024-09-28"))
        XCTAssertEqual(FiscalCalendar.weeks(inFiscalYear: 2024), 52)
        XCTAssertEqual(FiscalCalendar().fiscalMonth(containing: date("2023-09-30")), FiscalMonth(named: 9, of: 2023))
        XCTAssertEqual(FiscalCalendar().fiscalMonth(containing: date("2023-10-01")), FiscalMonth(named: 10, of: 2023))
    }

    /// FY2028 has 53 weeks by the rule: 2027-09-26 to 2028-09-30 (2028-09-30 is a Saturday).
    func testFY2028Has53WeeksByTheRule() {
        XCTAssertEqual(FiscalCalendar.weeks(inFiscalYear: 2028), 53)
        XCTAssertEqual(FiscalCalendar().dates(ofFiscalYear: 2028), date("2027-09-26")...date("2028-09-30"))
        XCTAssertEqual(FiscalCalendar().dates(of: FiscalMonth(named: 12, of: 2027)!), date("2027-11-28")...date("2028-01-01"))
        XCTAssertEqual(FiscalCalendar().dates(of: FiscalMonth(named: 1, of: 2028)!), date("2028-01-02")...date("2028-02-05"))
        let longYears = (2000...2040).filter { FiscalCalendar.weeks(inFiscalYear: $0) == 53 }
        XCTAssertEqual(longYears, [2000, 2006, 2012, 2017, 2023, 2028, 2034, 2040])
    }

    /// FY2000–FY2100: every year 52 or 53 weeks of Sunday–Saturday, its months tile it with no gap or
    /// overlap, every month has 4 or 5 whole weeks (5-4-4, fiscal December 5 in a 53-week year), is
    /// named after the calendar month it mostly covers, and every day maps back to its month.
    func testMonthsTileEveryYearFrom2000To2100() {
        let calendar = FiscalCalendar()
        for year in 2000...2100 {
            let weeks = FiscalCalendar.weeks(inFiscalYear: year)
            XCTAssertTrue(weeks == 52 || weeks == 53, "FY\(year)")
            let yearDates = calendar.dates(ofFiscalYear: year)
            XCTAssertEqual(yearDates.lowerBound.weekday, 0, "FY\(year) starts on a Sunday")
            XCTAssertEqual(yearDates.upperBound.weekday, 6, "FY\(year) ends on a Saturday")
            XCTAssertEqual(yearDates.upperBound.month, 9, "FY\(year) ends in September")
            XCTAssertGreaterThan(yearDates.upperBound.day, 23, "FY\(year) ends on the last Saturday")
            XCTAssertEqual(yearDates.days, Int64(weeks) * 7)
            XCTAssertEqual(yearDates.lowerBound, FiscalCalendar.lastDay(ofFiscalYear: year - 1).adding(days: 1))
            var expectedStart = yearDates.lowerBound
            for number in 1...12 {
                let month = FiscalMonth(fiscalYear: year, number: number)!
                let dates = calendar.dates(of: month)
                XCTAssertEqual(dates.lowerBound, expectedStart, "\(month) starts the day after the month before")
                XCTAssertEqual(dates.days % 7, 0)
                let extra = number == 3 && weeks == 53 ? 1 : 0
                XCTAssertEqual(Int(dates.days / 7), (number % 3 == 1 ? 5 : 4) + extra, "\(month)")
                var daysIn = [Int: Int]()
                for offset in stride(from: Int64(0), to: dates.days, by: 1) {
                    daysIn[dates.lowerBound.adding(days: offset).month, default: 0] += 1
                }
                XCTAssertEqual(daysIn.max { $0.value < $1.value }?.key, month.calendarMonth, "\(month) mostly covers its name")
                for day in [dates.lowerBound, dates.lowerBound.adding(days: 17), dates.upperBound] {
                    XCTAssertEqual(calendar.fiscalMonth(containing: day), month)
                }
                expectedStart = dates.upperBound.adding(days: 1)
            }
            XCTAssertEqual(expectedStart, yearDates.upperBound.adding(days: 1), "FY\(year)'s months end with it")
        }
    }

    /// Dates read from a financial report win; the months next to it give up or take the days.
    func testReportedDatesOverrideTheRule() throws {
        var calendar = FiscalCalendar()
        let october = FiscalMonth(named: 10, of: 2022)!
        // Suppose a report said fiscal October 2022 (FY2023) had the extra week.
        try calendar.useReportedDates(date("2022-09-25")...date("2022-11-05"), for: october)
        XCTAssertEqual(calendar.dates(of: october), date("2022-09-25")...date("2022-11-05"))
        XCTAssertEqual(calendar.dates(of: october.next), date("2022-11-06")...date("2022-11-26"))
        XCTAssertEqual(calendar.fiscalMonth(containing: date("2022-11-05")), october)
        XCTAssertEqual(calendar.fiscalMonth(containing: date("2022-11-06")), october.next)
        try calendar.useReportedDates(date("2022-11-06")...date("2022-12-03"), for: october.next)
        XCTAssertEqual(calendar.dates(of: october.next.next), date("2022-12-04")...date("2022-12-31"))
        XCTAssertEqual(calendar.dates(ofQuarter: 1, fiscalYear: 2023), date("2022-09-25")...date("2022-12-31"))
        try calendar.useReportedDates(date("2022-09-25")...date("2022-11-05"), for: october)  // the same again: no change
        XCTAssertEqual(calendar.reportedDates.count, 2)

        let errors: [(ClosedRange<CalendarDate>, FiscalMonth, String)] = [
            (
                date("2022-09-25")...date("2022-10-29"), october,
                "fiscal October 2022 was reported as 2022-09-25 to 2022-11-05, now as 2022-09-25 to 2022-10-29"
            ),
            (
                date("2019-09-29")...date("2019-11-02"), FiscalMonth(named: 1, of: 2023)!,
                "fiscal January 2023 reported as 2019-09-29 to 2019-11-02 does not overlap its dates by Apple's rule (2023-01-01 to 2023-02-04)"
            ),
            (
                date("2022-12-03")...date("2022-12-31"), october.next.next,
                "fiscal December 2022 reported as 2022-12-03 to 2022-12-31 does not meet fiscal November 2022 reported as 2022-11-06 to 2022-12-03"
            ),
            (
                date("2023-02-05")...date("2023-04-01"), FiscalMonth(named: 3, of: 2023)!,
                "fiscal March 2023 reported as 2023-02-05 to 2023-04-01 would leave fiscal February 2023 no day"
            ),
        ]
        for (dates, month, message) in errors {
            XCTAssertThrowsError(try calendar.useReportedDates(dates, for: month), message) {
                XCTAssertEqual(($0 as? FiscalCalendarError)?.description, message)
            }
        }
        XCTAssertEqual(calendar.reportedDates.count, 2, "a refused report changes nothing")
    }

    func testCalendarDates() {
        XCTAssertEqual(date("2024-02-29").description, "2024-02-29")
        XCTAssertNil(CalendarDate(iso: "2025-02-29"))
        XCTAssertNil(CalendarDate(iso: "2025-2-28"))
        XCTAssertNil(CalendarDate(iso: "2025-02-28T00:00:00Z"))
        XCTAssertEqual(CalendarDate(monthDayYear: "10/05/2020"), date("2020-10-05"))
        XCTAssertNil(CalendarDate(monthDayYear: "2020-10-05"))
        XCTAssertEqual(date("1970-01-01").dayNumber, 0)
        XCTAssertEqual(date("1969-12-31").dayNumber, -1)
        XCTAssertEqual(CalendarDate(utcMs: -1), date("1969-12-31"))
        XCTAssertEqual(CalendarDate(utcMs: 1_790_812_800_000), date("2026-10-01"))
        XCTAssertEqual(date("2026-10-01").weekday, 4)
        XCTAssertEqual(date("2024-10-01") - date("2024-09-29"), 2)
        XCTAssertEqual(CalendarDate.last(6, of: 9, 2023), date("2023-09-30"))
        XCTAssertEqual(CalendarDate.last(6, of: 9, 2027), date("2027-09-25"))
    }
}
