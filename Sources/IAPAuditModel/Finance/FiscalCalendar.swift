/// One month of Apple's fiscal calendar: the `number`th month (1 = October … 12 = September) of fiscal
/// year `fiscalYear` (FY2025 runs from fiscal October 2024 to fiscal September 2025).
///
/// A fiscal month is named after the calendar month it mostly covers: fiscal month 4 of FY2025 is
/// *fiscal January 2025* (2024-12-29 to 2025-02-01). The App Store Connect API's finance `reportDate`
/// is this fiscal period number, `2025-04`, not a calendar month: asking for `2025-04` when meaning
/// April is the three-month offset users fall into (FINANCE.md).
public struct FiscalMonth: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The fiscal year, named after the calendar year in which it ends (FY2025 ends 2025-09-27).
    public let fiscalYear: Int
    /// 1 = October, 2 = November, 3 = December, 4 = January … 12 = September.
    public let number: Int

    /// Month `number` (1–12) of `fiscalYear` (1–9999); nil outside those.
    public init?(fiscalYear: Int, number: Int) {
        guard (1...12).contains(number), (1...9999).contains(fiscalYear) else { return nil }
        (self.fiscalYear, self.number) = (fiscalYear, number)
    }

    /// The fiscal month named `month` (1–12) of calendar year `year`: fiscal October 2024 is month 1 of
    /// FY2025, fiscal January 2025 month 4 of FY2025. Nil for a month outside 1–12 or a year outside 1–9998.
    public init?(named month: Int, of year: Int) {
        guard (1...12).contains(month) else { return nil }
        self.init(fiscalYear: month >= 10 ? year + 1 : year, number: month >= 10 ? month - 9 : month + 3)
    }

    /// Reads an App Store Connect API finance `reportDate`, `YYYY-MM` with MM the fiscal period 01–12:
    /// `2025-04` is month 4 of FY2025 (fiscal January 2025). Nil for any other text.
    public init?(reportDate text: String) {
        let b = Array(text.utf8)
        guard b.count == 7, b[4] == UInt8(ascii: "-"), b.allSatisfy({ $0 == UInt8(ascii: "-") || $0 &- 48 < 10 }),
            let year = Int(text.prefix(4)), let number = Int(text.suffix(2))
        else { return nil }
        self.init(fiscalYear: year, number: number)
    }

    /// The App Store Connect API finance `reportDate` of this month: `2025-04` for fiscal January 2025.
    public var reportDate: String {
        String(repeating: "0", count: max(0, 4 - String(fiscalYear).count)) + "\(fiscalYear)-" + (number < 10 ? "0" : "") + "\(number)"
    }

    /// The calendar month (1–12) the fiscal month is named after: 10 for month 1.
    public var calendarMonth: Int { number <= 3 ? number + 9 : number - 3 }
    /// The calendar year of that name: 2024 for fiscal October 2024 (month 1 of FY2025).
    public var calendarYear: Int { number <= 3 ? fiscalYear - 1 : fiscalYear }
    /// The fiscal quarter, 1–4 (Q1 = fiscal October–December).
    public var quarter: Int { (number + 2) / 3 }

    /// The fiscal month after this one (fiscal October of the next fiscal year after fiscal September).
    public var next: FiscalMonth {
        number == 12 ? FiscalMonth(uncheckedYear: fiscalYear + 1, number: 1) : FiscalMonth(uncheckedYear: fiscalYear, number: number + 1)
    }
    /// The fiscal month before this one.
    public var previous: FiscalMonth {
        number == 1 ? FiscalMonth(uncheckedYear: fiscalYear - 1, number: 12) : FiscalMonth(uncheckedYear: fiscalYear, number: number - 1)
    }

    /// `fiscal January 2025`.
    public var description: String { "fiscal \(CalendarMonthNames.all[calendarMonth - 1]) \(calendarYear)" }

    /// Earlier.
    public static func < (a: FiscalMonth, b: FiscalMonth) -> Bool { (a.fiscalYear, a.number) < (b.fiscalYear, b.number) }

    private init(uncheckedYear: Int, number: Int) { (self.fiscalYear, self.number) = (uncheckedYear, number) }
}

/// English month names, January first.
public enum CalendarMonthNames {
    /// `January` … `December`.
    public static let all = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]
}

/// Why reported fiscal month dates cannot be used.
public struct FiscalCalendarError: Error, Equatable, CustomStringConvertible {
    /// One line: the month, the dates reported and what is wrong with them.
    public let description: String
}

/// Apple's fiscal calendar, computed from its rule (Apple's 10-K, FINANCE.md), not from a table:
///
/// - The fiscal year ends on the **last Saturday of September** and begins the day after the previous
///   one ended, so it holds 52 or 53 whole weeks, Sunday to Saturday (FY2024: 2023-10-01 to
///   2024-09-28; the "last Sunday of September" start quoted by many is wrong after a 53-week year).
/// - Quarters are 13 weeks of 5-4-4: Q1 = fiscal October (5 weeks), November (4), December (4), Q2 =
///   January–March, Q3 = April–June, Q4 = July–September. Months are named after the calendar month
///   they mostly cover.
/// - A 53-week year (FY2017, FY2023; FY2028 by the rule) gives the extra week to **fiscal December**,
///   the last month of Q1, which then has 5 weeks (5-4-5). Apple's 10-K says only that "an additional
///   week is included in the first fiscal quarter … to realign the Company's fiscal quarters with
///   calendar quarters" (FY2023's Q1 had 14 weeks: 2022-09-25 to 2022-12-31), which puts the week at
///   the end of Q1; the fiscal calendar Apple published for FY2017 (as developers transcribed it)
///   has fiscal December 2016 = 2016-11-27 to 2016-12-31. FINANCE.md calls the month unpublished:
///   so the dates Apple's financial reports give win — `useReportedDates(_:for:)` sets them.
///
/// Reported dates replace the rule for their month; the months next to it take the days it gives up
/// or covers, so the months always tile the calendar without a gap or an overlap.
public struct FiscalCalendar: Sendable, Equatable {
    /// Fiscal month → its dates as an Apple financial report gave them (Start Date, End Date).
    public private(set) var reportedDates: [FiscalMonth: ClosedRange<CalendarDate>] = [:]

    /// The calendar by the rule alone.
    public init() {}

    // MARK: - The rule

    /// The last day of fiscal year `fiscalYear`: the last Saturday of September of that year.
    public static func lastDay(ofFiscalYear fiscalYear: Int) -> CalendarDate { CalendarDate.last(6, of: 9, fiscalYear) }

    /// The first day of fiscal year `fiscalYear`: the Sunday after the previous fiscal year's last day.
    public static func firstDay(ofFiscalYear fiscalYear: Int) -> CalendarDate { lastDay(ofFiscalYear: fiscalYear - 1).adding(days: 1) }

    /// 52 or 53.
    public static func weeks(inFiscalYear fiscalYear: Int) -> Int {
        Int((lastDay(ofFiscalYear: fiscalYear) - firstDay(ofFiscalYear: fiscalYear) + 1) / 7)
    }

    /// Weeks of `month` by the rule: 5 for the first month of a quarter, else 4; 5 for fiscal December
    /// of a 53-week year.
    public static func weeksByRule(of month: FiscalMonth) -> Int {
        if month.number == 3 && weeks(inFiscalYear: month.fiscalYear) == 53 { return 5 }
        return month.number % 3 == 1 ? 5 : 4
    }

    /// The first and last day of `month` by the rule (reported dates ignored).
    public static func datesByRule(of month: FiscalMonth) -> ClosedRange<CalendarDate> {
        var first = firstDay(ofFiscalYear: month.fiscalYear)
        var number = 1
        while number < month.number {
            first = first.adding(days: 7 * Int64(weeksByRule(of: FiscalMonth(fiscalYear: month.fiscalYear, number: number)!)))
            number += 1
        }
        return first...first.adding(days: 7 * Int64(weeksByRule(of: month)) - 1)
    }

    // MARK: - Dates, with reported dates winning

    /// The first and last day of `month`: as reported when a report gave them; else by the rule, moved
    /// to meet a reported month next to it.
    public func dates(of month: FiscalMonth) -> ClosedRange<CalendarDate> {
        let (first, last) = bounds(of: month)
        return first...last
    }

    /// The first and last day of quarter `quarter` (1–4) of `fiscalYear`: Q1 of FY2026 is fiscal
    /// October–December 2025, 2025-09-28 to 2025-12-27.
    public func dates(ofQuarter quarter: Int, fiscalYear: Int) -> ClosedRange<CalendarDate> {
        dates(of: FiscalMonth(fiscalYear: fiscalYear, number: 3 * quarter - 2)!)
            .lowerBound...dates(of: FiscalMonth(fiscalYear: fiscalYear, number: 3 * quarter)!).upperBound
    }

    /// The first and last day of fiscal year `fiscalYear`.
    public func dates(ofFiscalYear fiscalYear: Int) -> ClosedRange<CalendarDate> {
        dates(of: FiscalMonth(fiscalYear: fiscalYear, number: 1)!)
            .lowerBound...dates(of: FiscalMonth(fiscalYear: fiscalYear, number: 12)!).upperBound
    }

    /// The fiscal month `date` falls in (2025-01-15 is in fiscal January 2025, month 4 of FY2025).
    public func fiscalMonth(containing date: CalendarDate) -> FiscalMonth {
        let year = date.year
        let fiscalYear = date > Self.lastDay(ofFiscalYear: year) ? year + 1 : year
        var month = FiscalMonth(fiscalYear: fiscalYear, number: 1)!
        while month.number < 12 && Self.datesByRule(of: month).upperBound < date { month = month.next }
        // Reported dates move a boundary by days, never past a whole neighbour (each month keeps a day).
        while true {
            let (first, last) = bounds(of: month)
            if date < first {
                month = month.previous
            } else if date > last {
                month = month.next
            } else {
                return month
            }
        }
    }

    /// Uses the dates an Apple financial report gives for `month` (its Start Date and End Date) in
    /// place of the rule's. Giving the same dates again (one report per region) changes nothing.
    /// - Throws: `FiscalCalendarError` when the dates do not overlap the rule's (the report of another
    ///   month?), differ from dates already reported for the month, leave a gap or an overlap with a
    ///   reported month next to it, or leave a month next to it no day.
    public mutating func useReportedDates(_ reported: ClosedRange<CalendarDate>, for month: FiscalMonth) throws {
        if let known = reportedDates[month] {
            guard known != reported else { return }
            throw FiscalCalendarError(description: "\(month) was reported as \(known.text), now as \(reported.text)")
        }
        let rule = Self.datesByRule(of: month)
        guard reported.overlaps(rule) else {
            throw FiscalCalendarError(
                description: "\(month) reported as \(reported.text) does not overlap its dates by Apple's rule (\(rule.text))")
        }
        var next = self
        next.reportedDates[month] = reported
        for (neighbour, before) in [(month.previous, true), (month.next, false)] {
            let (first, last) = next.bounds(of: neighbour)
            if let known = reportedDates[neighbour],
                before ? known.upperBound.adding(days: 1) != reported.lowerBound : known.lowerBound.adding(days: -1) != reported.upperBound
            {
                throw FiscalCalendarError(
                    description: "\(month) reported as \(reported.text) does not meet \(neighbour) reported as \(known.text)")
            }
            if first > last {
                throw FiscalCalendarError(description: "\(month) reported as \(reported.text) would leave \(neighbour) no day")
            }
        }
        self = next
    }

    /// `dates(of:)` as a pair, which may be empty (first after last) while reported dates are checked.
    private func bounds(of month: FiscalMonth) -> (CalendarDate, CalendarDate) {
        if let reported = reportedDates[month] { return (reported.lowerBound, reported.upperBound) }
        let rule = Self.datesByRule(of: month)
        return (
            reportedDates[month.previous].map { $0.upperBound.adding(days: 1) } ?? rule.lowerBound,
            reportedDates[month.next].map { $0.lowerBound.adding(days: -1) } ?? rule.upperBound
        )
    }
}
