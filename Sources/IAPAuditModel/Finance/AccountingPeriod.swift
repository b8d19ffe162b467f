/// The calendar in which a close's `--period` is read (`--calendar`).
public enum PeriodCalendar: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Calendar months, quarters January–March … October–December, years January–December.
    case gregorian
    /// Apple's fiscal calendar (`FiscalCalendar`): fiscal months of 4 or 5 weeks, fiscal quarters
    /// (Q1 = fiscal October–December of the previous calendar year), fiscal years ending on the last
    /// Saturday of September. The calendar of Apple's financial reports and payments.
    case appleFiscal = "apple-fiscal"

    /// Reads `--calendar`: `gregorian` or `apple-fiscal`.
    /// - Throws: `PeriodError` naming both.
    public init(parsing text: String) throws {
        guard let calendar = PeriodCalendar(rawValue: text) else {
            throw PeriodError("--calendar '\(text)': expected gregorian or apple-fiscal")
        }
        self = calendar
    }

    /// `gregorian` or `apple-fiscal`, as `--calendar` writes it.
    public var description: String { rawValue }
}

/// The period a close covers (`--period`), read in a calendar and a time zone: its first and last day
/// and the instants between, `[startMs, endMs)` in UTC milliseconds since 1970.
///
/// What each form means in each calendar (the choice for `YYYY-Qn` is Apple's own numbering):
///
/// | `--period` | `gregorian` | `apple-fiscal` |
/// |---|---|---|
/// | `2026-10` | October 2026, 2026-10-01 to 2026-10-31 | fiscal October 2026, 2026-09-27 to 2026-10-31 (month 1 of FY2027) |
/// | `2026-Q1` | January–March 2026 | Q1 **of FY2026**: fiscal October–December **2025**, 2025-09-28 to 2025-12-27 |
/// | `FY2026-Q1` | refused (a fiscal quarter) | the same as `2026-Q1` |
/// | `FY2026` | refused (a fiscal year) | FY2026, 2025-09-28 to 2026-09-26 |
/// | `2026` | 2026-01-01 to 2026-12-31 | fiscal January–December 2026, 2025-12-28 to 2026-12-26 |
///
/// In `apple-fiscal`, `YYYY-MM` names a fiscal month by the calendar month it is named after, not by
/// the App Store Connect API's fiscal period number (`reportDate` `2027-01` is fiscal October 2026:
/// `FiscalMonth(reportDate:)`). Fiscal dates follow `FiscalCalendar`, with any dates read from
/// Apple's financial reports.
public struct AccountingPeriod: Sendable, Equatable, CustomStringConvertible {
    /// What the period names, before any calendar gives it dates.
    public enum Span: Sendable, Hashable {
        /// Month 1–12 of a year: a calendar month, or the fiscal month named after it.
        case month(year: Int, month: Int)
        /// Quarter 1–4 of a year: January–March… of the calendar year, or Qn of fiscal year `year`.
        case quarter(year: Int, quarter: Int)
        /// Apple's fiscal year `year` (apple-fiscal only).
        case fiscalYear(Int)
        /// The year: January–December, or the fiscal months named January–December of it.
        case year(Int)
    }

    /// What `--period` named.
    public let span: Span
    /// The calendar the span was read in.
    public let calendar: PeriodCalendar
    /// The zone in which the period's days begin and end.
    public let timeZone: PeriodTimeZone
    /// The period's first day.
    public let firstDay: CalendarDate
    /// The period's last day (included).
    public let lastDay: CalendarDate
    /// The first instant of `firstDay` in `timeZone`, UTC milliseconds (included).
    public let startMs: Int64
    /// The first instant of the day after `lastDay` in `timeZone`, UTC milliseconds (excluded).
    public let endMs: Int64

    /// The years a period may name (its instants stay within `Timestamp.validRange`).
    public static let years = 1901...2199

    /// The period `span` in `calendar` and `timeZone`; fiscal dates from `fiscalCalendar`.
    /// - Throws: `PeriodError` for a year outside `years`, a month or quarter out of range, or
    ///   `fiscalYear` in the gregorian calendar.
    public init(_ span: Span, calendar: PeriodCalendar, timeZone: PeriodTimeZone = .utc, fiscalCalendar: FiscalCalendar = FiscalCalendar())
        throws
    {
        let (year, part) = Self.yearAndPart(span)
        guard Self.years.contains(year) else {
            throw PeriodError("--period: year \(year) is outside \(Self.years.lowerBound) to \(Self.years.upperBound)")
        }
        let days: ClosedRange<CalendarDate>
        switch (span, calendar) {
        case (.month, _) where !(1...12).contains(part), (.quarter, _) where !(1...4).contains(part):
            throw PeriodError("--period: no \(span.isMonth ? "month" : "quarter") \(part); \(Self.acceptedForms(calendar))")
        case (.fiscalYear, .gregorian):
            throw PeriodError(
                "--period FY\(year) is Apple's fiscal year: add --calendar apple-fiscal, or give \(year) for the calendar year")
        case (.month, .gregorian):
            days =
                CalendarDate(year: year, month: part, day: 1)!...CalendarDate(year: year, month: part, day: Timestamp.daysIn(year, part))!
        case (.quarter, .gregorian):
            let last = 3 * part
            days =
                CalendarDate(year: year, month: last - 2, day: 1)!...CalendarDate(
                    year: year, month: last, day: Timestamp.daysIn(year, last))!
        case (.year, .gregorian):
            days = CalendarDate(year: year, month: 1, day: 1)!...CalendarDate(year: year, month: 12, day: 31)!
        case (.month, .appleFiscal):
            days = fiscalCalendar.dates(of: FiscalMonth(named: part, of: year)!)
        case (.quarter, .appleFiscal):
            days = fiscalCalendar.dates(ofQuarter: part, fiscalYear: year)
        case (.fiscalYear, .appleFiscal):
            days = fiscalCalendar.dates(ofFiscalYear: year)
        case (.year, .appleFiscal):
            days =
                fiscalCalendar.dates(of: FiscalMonth(named: 1, of: year)!)
                .lowerBound...fiscalCalendar.dates(of: FiscalMonth(named: 12, of: year)!).upperBound
        }
        (self.span, self.calendar, self.timeZone) = (span, calendar, timeZone)
        (firstDay, lastDay) = (days.lowerBound, days.upperBound)
        startMs = timeZone.startMs(of: days.lowerBound)
        endMs = timeZone.startMs(of: days.upperBound.adding(days: 1))
    }

    /// Reads `--period` in `calendar` (see the table above): `YYYY-MM`, `YYYY-Qn`, `FY<year>-Qn`,
    /// `FY<year>` or `YYYY` (`FY` and `Q` in either case).
    /// - Throws: `PeriodError`, one line naming the forms `calendar` accepts and what a quarter means in it.
    public static func parse(
        _ text: String, calendar: PeriodCalendar, timeZone: PeriodTimeZone = .utc, fiscalCalendar: FiscalCalendar = FiscalCalendar()
    ) throws -> AccountingPeriod {
        guard let span = span(text) else { throw PeriodError("--period '\(text)': \(acceptedForms(calendar))") }
        if case .quarter = span, text.uppercased().hasPrefix("FY"), calendar == .gregorian {
            throw PeriodError(
                "--period '\(text)' is a quarter of Apple's fiscal year: add --calendar apple-fiscal, or give YYYY-Qn for a calendar quarter"
            )
        }
        return try AccountingPeriod(span, calendar: calendar, timeZone: timeZone, fiscalCalendar: fiscalCalendar)
    }

    /// The forms `--period` takes in `calendar`, and what a quarter means there (one line).
    public static func acceptedForms(_ calendar: PeriodCalendar) -> String {
        switch calendar {
        case .gregorian:
            return "expected YYYY-MM (a month: 2026-10), YYYY-Qn (a calendar quarter: 2026-Q1 = January-March 2026) "
                + "or YYYY (a year); FY<year> needs --calendar apple-fiscal"
        case .appleFiscal:
            return "expected YYYY-MM (a fiscal month: 2026-10 = fiscal October 2026), YYYY-Qn or FY<year>-Qn "
                + "(a quarter of the fiscal year: 2026-Q1 = FY2026-Q1 = fiscal October-December 2025), FY<year> (a fiscal year: FY2026) "
                + "or YYYY (the fiscal months January-December YYYY)"
        }
    }

    /// Whether the instant `ms` (UTC milliseconds) falls in the period: `startMs <= ms < endMs`.
    public func contains(_ ms: Int64) -> Bool { ms >= startMs && ms < endMs }

    /// The fiscal months the period covers (apple-fiscal; none for gregorian): the months whose
    /// financial reports it books.
    public var fiscalMonths: [FiscalMonth] {
        guard calendar == .appleFiscal else { return [] }
        var months: [FiscalMonth] = []
        var month: FiscalMonth
        switch span {
        case .month(let year, let part): month = FiscalMonth(named: part, of: year)!
        case .quarter(let year, let part): month = FiscalMonth(fiscalYear: year, number: 3 * part - 2)!
        case .fiscalYear(let year): month = FiscalMonth(fiscalYear: year, number: 1)!
        case .year(let year): month = FiscalMonth(named: 1, of: year)!
        }
        let count = span.isMonth ? 1 : { if case .quarter = span { return 3 } else { return 12 } }()
        for _ in 0..<count {
            months.append(month)
            month = month.next
        }
        return months
    }

    /// The period as `--period` writes it, for file names (`close-2026-10.xlsx`): `2026-10`, `2026-Q1`,
    /// `FY2026`, `2026`.
    public var label: String {
        switch span {
        case .month(let year, let month): return "\(year)-\(month < 10 ? "0" : "")\(month)"
        case .quarter(let year, let quarter): return "\(year)-Q\(quarter)"
        case .fiscalYear(let year): return "FY\(year)"
        case .year(let year): return "\(year)"
        }
    }

    /// The close's name for the period, unique per calendar and time zone (file names, the close tables'
    /// key): `2026-10` for a gregorian UTC month, `2026-10-apple-fiscal-America_Los_Angeles` otherwise,
    /// so the calendar and the fiscal close of one month never overwrite each other.
    public var closeName: String {
        var name = label
        if calendar == .appleFiscal { name += "-apple-fiscal" }
        if timeZone != .utc { name += "-" + timeZone.identifier.replacingOccurrences(of: "/", with: "_") }
        return name
    }

    /// `fiscal October 2026, 2026-09-27 to 2026-10-31 (apple-fiscal, America/Los_Angeles)`.
    public var description: String {
        let name: String
        switch (span, calendar) {
        case (.month(let year, let month), .gregorian): name = "\(CalendarMonthNames.all[month - 1]) \(year)"
        case (.month(let year, let month), .appleFiscal): name = "\(FiscalMonth(named: month, of: year)!)"
        case (.quarter(let year, let quarter), .gregorian): name = "Q\(quarter) \(year)"
        case (.quarter(let year, let quarter), .appleFiscal): name = "Q\(quarter) of FY\(year)"
        case (.fiscalYear(let year), _): name = "FY\(year)"
        case (.year(let year), .gregorian): name = "\(year)"
        case (.year(let year), .appleFiscal): name = "fiscal January-December \(year)"
        }
        return "\(name), \(firstDay) to \(lastDay) (\(calendar), \(timeZone))"
    }

    /// The span `text` names, whatever the calendar; nil when it is none of the forms.
    private static func span(_ text: String) -> Span? {
        let upper = text.uppercased()
        let fiscal = upper.hasPrefix("FY")
        let rest = Array((fiscal ? upper.dropFirst(2) : upper[...]).utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= rest.count, range.allSatisfy({ rest[$0] &- 48 < 10 }) else { return nil }
            return Int(String(decoding: rest[range], as: UTF8.self))
        }
        guard let year = digits(0..<4) else { return nil }
        switch rest.count {
        case 4: return fiscal ? .fiscalYear(year) : .year(year)
        case 7 where rest[4] == UInt8(ascii: "-") && rest[5] == UInt8(ascii: "Q"):
            return digits(6..<7).map { .quarter(year: year, quarter: $0) }
        case 7 where rest[4] == UInt8(ascii: "-") && !fiscal:
            return digits(5..<7).map { .month(year: year, month: $0) }
        default: return nil
        }
    }

    private static func yearAndPart(_ span: Span) -> (Int, Int) {
        switch span {
        case .month(let year, let part), .quarter(let year, let part): return (year, part)
        case .fiscalYear(let year), .year(let year): return (year, 0)
        }
    }
}

extension AccountingPeriod.Span {
    fileprivate var isMonth: Bool { if case .month = self { return true } else { return false } }
}
