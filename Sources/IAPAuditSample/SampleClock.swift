import IAPAuditModel

/// The sample's calendar: a fixed month starting 2026-10-01T00:00:00Z, and the text forms of
/// instants the three inputs use.
///
/// Instants are whole seconds since 1970-01-01 UTC. Kept independent of the importer's
/// `Timestamp` on purpose: the sample checks the importer, so it must not share its arithmetic.
enum SampleClock {
    /// 2026-10-01T00:00:00Z.
    static let start: Int64 = 1_790_812_800
    /// 2026-10-31T00:00:00Z: the newest record of every sample (the audit's as-of).
    static let end: Int64 = 1_793_404_800
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400

    /// ISO 8601 UTC without fractions, e.g. `2026-10-01T12:00:00Z`.
    static func iso(_ t: Int64) -> String {
        let (date, time) = civil(t)
        return "\(date)T\(time)Z"
    }

    /// Apple's `purchase_date` form: `2026-10-01 12:00:00 Etc/GMT`.
    static func gmt(_ t: Int64) -> String {
        let (date, time) = civil(t)
        return "\(date) \(time) Etc/GMT"
    }

    /// Apple's `purchase_date_pst` form: wall-clock time in Los Angeles (PDT or PST by the US
    /// rules since 2007), e.g. `2026-10-01 05:00:00 America/Los_Angeles`.
    static func pacific(_ t: Int64) -> String {
        let (date, time) = civil(t + pacificOffset(t))
        return "\(date) \(time) America/Los_Angeles"
    }

    /// The close's period, October 2026 in UTC: `[start, periodEnd)`.
    static let periodEnd: Int64 = start + 31 * day

    /// `YYYY-MM-DD` of an instant in UTC.
    static func utcDay(_ t: Int64) -> String { civil(t).0 }

    /// `YYYY-MM-DD` of an instant in Los Angeles: the day Apple's Sales and Trends reports put it in.
    static func pacificDay(_ t: Int64) -> String { civil(t + pacificOffset(t)).0 }

    /// `YYYY-MM-DD` → `MM/DD/YYYY`, as App Store Connect's reports write dates.
    static func reportDate(_ day: String) -> String {
        let parts = day.split(separator: "-")
        return "\(parts[1])/\(parts[2])/\(parts[0])"
    }

    /// The days `first` … `last` (`YYYY-MM-DD`), each one day on from the one before.
    static func days(from first: String, to last: String) -> [String] {
        var result: [String] = []
        var d = dayNumber(of: first)
        while true {
            let text = civil(d * day).0
            result.append(text)
            if text == last { return result }
            d += 1
        }
    }

    /// Apple's fiscal October 2026, by the rule (FINANCE.md): fiscal year 2027 begins the day after the
    /// last Saturday of September 2026, and its first month has five Sunday–Saturday weeks.
    static var fiscalOctober: (first: String, last: String) {
        let september30 = dayNumber(2026, 10) - 1
        let lastSaturday = september30 - (september30 + 4 + 1) % 7  // 1970-01-01 was a Thursday
        return (civil((lastSaturday + 1) * day).0, civil((lastSaturday + 35) * day).0)
    }

    /// Milliseconds since 1970 as text (Apple's `*_ms` fields).
    static func ms(_ t: Int64) -> String { String(t * 1000) }

    /// -7 h during US daylight time (2nd Sunday of March 10:00 UTC to 1st Sunday of November
    /// 09:00 UTC), else -8 h.
    static func pacificOffset(_ t: Int64) -> Int64 {
        let year = yearMonthDay(days(t)).year
        let dstStart = nthSunday(year, month: 3, n: 2) * day + 10 * hour
        let dstEnd = nthSunday(year, month: 11, n: 1) * day + 9 * hour
        return (t >= dstStart && t < dstEnd) ? -7 * hour : -8 * hour
    }

    /// `YYYY-MM-DD` and `HH:MM:SS` of an instant in UTC.
    private static func civil(_ t: Int64) -> (String, String) {
        let d = days(t)
        let rest = t - d * day
        let (y, m, dd) = yearMonthDay(d)
        let date = "\(pad(y, 4))-\(pad(m, 2))-\(pad(dd, 2))"
        let time = "\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2))"
        return (date, time)
    }

    private static func days(_ t: Int64) -> Int64 {
        t >= 0 ? t / day : -((-t + day - 1) / day)
    }

    /// Day number (since 1970-01-01) to year, month, day: walks whole years, then months.
    /// Simple rather than fast; the sample only formats dates of 2025–2027.
    private static func yearMonthDay(_ dayNumber: Int64) -> (year: Int64, month: Int64, day: Int64) {
        var year: Int64 = 1970
        var rest = dayNumber
        if rest >= 18_262 {  // 2020-01-01: skip the first fifty years at once
            year = 2020
            rest -= 18_262
        }
        while rest < 0 {
            year -= 1
            rest += isLeap(year) ? 366 : 365
        }
        while rest >= (isLeap(year) ? 366 : 365) {
            rest -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month: Int64 = 1
        while rest >= monthLength(year, month) {
            rest -= monthLength(year, month)
            month += 1
        }
        return (year, month, rest + 1)
    }

    /// Day number of a `YYYY-MM-DD` day.
    private static func dayNumber(of text: String) -> Int64 {
        let parts = text.split(separator: "-").map { Int64($0)! }
        return dayNumber(parts[0], parts[1]) + parts[2] - 1
    }

    /// Day number of the first day of a month.
    private static func dayNumber(_ year: Int64, _ month: Int64) -> Int64 {
        var total: Int64 = year >= 2020 ? 18_262 : 0
        var y: Int64 = year >= 2020 ? 2020 : 1970
        while y < year {
            total += isLeap(y) ? 366 : 365
            y += 1
        }
        var m: Int64 = 1
        while m < month {
            total += monthLength(year, m)
            m += 1
        }
        return total
    }

    private static func nthSunday(_ year: Int64, month: Int64, n: Int64) -> Int64 {
        let first = dayNumber(year, month)
        let weekday = (first + 4) % 7  // 1970-01-01 was a Thursday; 0 = Sunday
        return first + (7 - weekday) % 7 + 7 * (n - 1)
    }

    private static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    private static func monthLength(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
