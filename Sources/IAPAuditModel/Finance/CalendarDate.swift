/// A day of the proleptic Gregorian calendar, with no time of day and no time zone: a fiscal month's
/// first and last day, an accounting period's dates, a price's `valid_from`, a financial report's
/// Start Date. Which instants a day covers depends on a time zone (`PeriodTimeZone.startMs(of:)`).
///
/// Stored as a day number (days since 1970-01-01; negative before), so that dates compare, subtract
/// and add days as integers. Years 1 to 9999.
public struct CalendarDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (that day is 0).
    public let dayNumber: Int64

    /// The day `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int64) { self.dayNumber = dayNumber }

    /// The day `year`-`month`-`day`; nil when there is no such day (2026-02-29, month 13) or the year
    /// is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Timestamp.daysIn(year, month) else { return nil }
        dayNumber = Timestamp.daysFromCivil(year, month, day)
    }

    /// Reads `YYYY-MM-DD` (ISO 8601, the form every date of iap-audit is written in); nil otherwise.
    public init?(iso text: String) { self.init(text, separator: UInt8(ascii: "-"), year: 0, month: 5, day: 8) }

    /// Reads `MM/DD/YYYY`, the form of the Start Date and End Date columns of App Store Connect's
    /// financial reports (`10/05/2020`); nil otherwise.
    public init?(monthDayYear text: String) { self.init(text, separator: UInt8(ascii: "/"), year: 6, month: 0, day: 3) }

    /// Ten characters: a 4-digit year, 2-digit month and day at the offsets given, `separator` between.
    private init?(_ text: String, separator: UInt8, year: Int, month: Int, day: Int) {
        let b = Array(text.utf8)
        let separators = [year, month, day].sorted().dropFirst().map { $0 - 1 }
        guard b.count == 10, separators.allSatisfy({ b[$0] == separator }), let y = Self.number(b, year, 4),
            let m = Self.number(b, month, 2), let d = Self.number(b, day, 2)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The UTC day of an instant in milliseconds since 1970 (for another zone: `PeriodTimeZone.date(containing:)`).
    public init(utcMs ms: Int64) {
        dayNumber = ms >= 0 ? ms / 86_400_000 : -((-ms + 86_399_999) / 86_400_000)
    }

    /// Year, month (1–12) and day of month (1–31).
    public var components: (year: Int, month: Int, day: Int) {
        let (y, m, d) = Timestamp.civilFromDays(dayNumber)
        return (Int(y), Int(m), Int(d))
    }

    /// The year, 1–9999.
    public var year: Int { components.year }
    /// The month, 1–12.
    public var month: Int { components.month }
    /// The day of the month, 1–31.
    public var day: Int { components.day }

    /// The day of the week: 0 = Sunday … 6 = Saturday (Apple's fiscal weeks run Sunday to Saturday).
    public var weekday: Int { Int(((dayNumber + 4) % 7 + 7) % 7) }  // 1970-01-01 was a Thursday

    /// The day `days` days later (earlier when negative).
    public func adding(days: Int64) -> CalendarDate { CalendarDate(dayNumber: dayNumber + days) }

    /// Days from `other` to `self` (`2024-10-01 - 2024-09-29` is 2).
    public static func - (a: CalendarDate, b: CalendarDate) -> Int64 { a.dayNumber - b.dayNumber }

    /// Earlier.
    public static func < (a: CalendarDate, b: CalendarDate) -> Bool { a.dayNumber < b.dayNumber }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (y, m, d) = components
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The last day of `month` (1–12) of `year` that falls on `weekday` (0 = Sunday … 6 = Saturday).
    public static func last(_ weekday: Int, of month: Int, _ year: Int) -> CalendarDate {
        let last = CalendarDate(year: year, month: month, day: Timestamp.daysIn(year, month))!
        return last.adding(days: -Int64((last.weekday - weekday + 7) % 7))
    }

    /// Decimal digits `b[at..<at+count]` as a number; nil when one is not a digit.
    private static func number(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        var v = 0
        for i in at..<(at + count) {
            let d = b[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }
}

extension ClosedRange where Bound == CalendarDate {
    /// How many days the range holds (both ends counted).
    public var days: Int64 { upperBound - lowerBound + 1 }

    /// `2025-09-28 to 2025-11-01`.
    public var text: String { "\(lowerBound) to \(upperBound)" }
}
