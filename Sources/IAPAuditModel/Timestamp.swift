import Foundation

/// Timestamp parsing for every form the inputs use; results are milliseconds since 1970 UTC.
///
/// Accepted: epoch milliseconds (number or digits); ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`
/// (no zone = UTC, `T` or a space); Apple's text dates `YYYY-MM-DD HH:MM:SS Etc/GMT` (also `GMT`,
/// `UTC`) and `YYYY-MM-DD HH:MM:SS America/Los_Angeles` (US daylight-saving rules, semantics.md rule 15).
public enum Timestamp {
    /// The instants accepted: 1900-01-01 to 2200-01-01 UTC. Anything outside is a corrupt value,
    /// not a purchase (and would overflow date arithmetic).
    public static let validRange: ClosedRange<Int64> = -2_208_988_800_000...7_258_118_400_000

    /// The smallest epoch-millisecond value a log's `ts` or `received_at` may be: 10^11 ms
    /// (1973-03-03). A smaller number is almost surely epoch *seconds* (1790812920 s is 2026-10-01,
    /// read as milliseconds 1970-01-21): rejected, not read as a date 56 years off.
    public static let earliestLogEpochMs: Int64 = 100_000_000_000

    /// Parses `text`; nil when it is none of the accepted forms or outside `validRange`.
    public static func parseMs(_ text: String) -> Int64? {
        guard let ms = parseUnchecked(text), validRange.contains(ms) else { return nil }
        return ms
    }

    private static func parseUnchecked(_ text: String) -> Int64? {
        // Fast path: epoch milliseconds as digits (Apple's `*_ms` fields), no white space.
        if let first = text.utf8.first, first != UInt8(ascii: "+"), let ms = Int64(text) { return ms }
        let s = text.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) ? text.trimmingCharacters(in: .whitespaces) : text
        if s.isEmpty { return nil }
        if s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            || (s.utf8.first == UInt8(ascii: "-") && s.utf8.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }))
        {
            return Int64(s)
        }
        let bytes = Array(s.utf8)
        guard let (local, i) = bytes.withUnsafeBufferPointer({ localTime($0) }) else { return nil }
        if i == bytes.count || (i + 1 == bytes.count && bytes[i] == UInt8(ascii: "Z")) { return local }
        let zone = String(decoding: bytes[i...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        switch zone {
        case "", "Z", "Etc/GMT", "GMT", "UTC", "Etc/UTC", "+00:00", "+0000":
            return local
        case "America/Los_Angeles", "PST", "PDT":
            return local - losAngelesOffsetMs(localMs: local)
        default:
            guard let offset = offsetMs(zone) else { return nil }
            return local - offset
        }
    }

    /// The forms of `parseMs` that fill machine-written logs, read from bytes without making a
    /// string: epoch milliseconds (digits, optional minus), and `YYYY-MM-DD(T| )HH:MM:SS[.f…]`
    /// followed by nothing, `Z`, ` Etc/GMT` or ` America/Los_Angeles`. Returns exactly what
    /// `parseMs` returns for these; nil for every other text (which `parseMs` then decides).
    package static func fastParseMs(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = b.count
        guard n > 0 else { return nil }
        if b[0] == UInt8(ascii: "-") || b[0] &- 0x30 < 10, b.dropFirst().allSatisfy({ $0 &- 0x30 < 10 }) {
            let negative = b[0] == UInt8(ascii: "-")
            let digits = n - (negative ? 1 : 0)
            guard digits > 0, digits <= 18 else { return nil }  // 18 digits never overflow
            var v: Int64 = 0
            for i in (negative ? 1 : 0)..<n { v = v * 10 + Int64(b[i] &- 0x30) }
            let ms = negative ? -v : v
            return validRange.contains(ms) ? ms : nil
        }
        guard let (local, i) = localTime(b) else { return nil }
        let zone = UnsafeBufferPointer(rebasing: b[i...])
        let ms: Int64
        if zone.isEmpty || (zone.count == 1 && zone[0] == UInt8(ascii: "Z")) || zone.elementsEqual(" Etc/GMT".utf8) {
            ms = local
        } else if zone.elementsEqual(" America/Los_Angeles".utf8) {
            ms = local - losAngelesOffsetMs(localMs: local)
        } else {
            return nil
        }
        return validRange.contains(ms) ? ms : nil
    }

    /// `YYYY-MM-DD(T| )HH:MM:SS[.f…]` at the start of `b`, as milliseconds since 1970 of that wall-clock
    /// time read as UTC (digits past the third of the fraction ignored), and the index after it; nil
    /// when `b` does not start with a valid date and time of that form.
    private static func localTime(_ b: UnsafeBufferPointer<UInt8>) -> (ms: Int64, end: Int)? {
        @inline(__always) func digit(_ i: Int) -> Int? {
            let d = b[i] &- 0x30
            return d < 10 ? Int(d) : nil
        }
        @inline(__always) func number(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for i in at..<(at + count) {
                guard let d = digit(i) else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard b.count >= 19, let y = number(0, 4), b[4] == UInt8(ascii: "-"), let mo = number(5, 2), b[7] == UInt8(ascii: "-"),
            let d = number(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), let h = number(11, 2),
            b[13] == UInt8(ascii: ":"), let mi = number(14, 2), b[16] == UInt8(ascii: ":"), let se = number(17, 2),
            (1...12).contains(mo), (1...daysIn(y, mo)).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        var i = 19
        var fractionMs: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale: Int64 = 100
            while i < b.count, let v = digit(i) {
                fractionMs += Int64(v) * scale
                scale /= 10
                i += 1
            }
        }
        return (daysFromCivil(y, mo, d) * 86_400_000 + Int64(h * 3600 + mi * 60 + se) * 1000 + fractionMs, i)
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-10-01T00:00:00.000Z`. An instant before year 0 or after 9999 (no
    /// record's: a damaged ledger's) is said as the nearest of those ends, never trapping on overflow.
    public static func iso(_ ms: Int64) -> String {
        let ms = min(max(ms, -62_167_219_200_000), 253_402_300_799_999)
        let days = floorDiv(ms, 86_400_000)
        let rest = ms - days * 86_400_000
        let (y, m, d) = civilFromDays(days)
        let h = rest / 3_600_000, mi = rest / 60_000 % 60, s = rest / 1000 % 60, f = rest % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// The UTC day `YYYY-MM-DD` of an instant.
    public static func day(_ ms: Int64) -> String { String(iso(ms).prefix(10)) }

    // MARK: - Calendar arithmetic (proleptic Gregorian, H. Hinnant's algorithms)

    package static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Pacific offset (-7 h or -8 h) for a wall-clock time in Los Angeles. US rules since 2007:
    /// daylight time from the 2nd Sunday of March 02:00 to the 1st Sunday of November 02:00;
    /// 1987–2006: 1st Sunday of April to the last Sunday of October. The repeated hour in
    /// autumn is read as daylight time (the earlier instant).
    package static func losAngelesOffsetMs(localMs: Int64) -> Int64 {
        let (y, _, _) = civilFromDays(floorDiv(localMs, 86_400_000))
        let year = Int(y)
        let start: Int64, end: Int64
        if year >= 2007 {
            start = sunday(year, 3, nth: 2)
            end = sunday(year, 11, nth: 1)
        } else {
            start = sunday(year, 4, nth: 1)
            end = lastSunday(year, 10)
        }
        let startMs = start * 86_400_000 + 2 * 3_600_000
        let endMs = end * 86_400_000 + 2 * 3_600_000  // 02:00 PDT = 01:00 PST: repeated hour → PDT
        return (localMs >= startMs && localMs < endMs) ? -7 * 3_600_000 : -8 * 3_600_000
    }

    package static func daysIn(_ year: Int, _ month: Int) -> Int {
        let next = month == 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)
        return Int(next - daysFromCivil(year, month, 1))
    }

    /// Day number of the nth Sunday of a month.
    package static func sunday(_ year: Int, _ month: Int, nth: Int) -> Int64 {
        let first = daysFromCivil(year, month, 1)
        let weekday = (first + 4) % 7  // 1970-01-01 was a Thursday; 0 = Sunday
        let offset = (7 - (weekday < 0 ? weekday + 7 : weekday)) % 7
        return first + offset + Int64(7 * (nth - 1))
    }

    package static func lastSunday(_ year: Int, _ month: Int) -> Int64 {
        let next = month == 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)
        let last = next - 1
        let weekday = ((last + 4) % 7 + 7) % 7
        return last - weekday
    }

    private static func offsetMs(_ zone: String) -> Int64? {
        let b = Array(zone.utf8)
        guard b.count == 6 || b.count == 5, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
        let hasColon = b.count == 6
        guard let h = number(b, 1, 2), let m = number(b, hasColon ? 4 : 3, 2), m < 60, h * 60 + m <= 14 * 60,
            !hasColon || b[3] == UInt8(ascii: ":")
        else { return nil }
        let sign: Int64 = b[0] == UInt8(ascii: "-") ? -1 : 1
        return sign * Int64(h * 60 + m) * 60_000
    }

    private static func digit(_ b: UInt8) -> Int? { (48...57).contains(b) ? Int(b - 48) : nil }

    private static func number(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            guard let d = digit(b[i]) else { return nil }
            v = v * 10 + d
        }
        return v
    }

    /// ⌊a / b⌋ for b > 0, for every a (no negation: -Int64.min overflows).
    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a % b < 0 ? a / b - 1 : a / b }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
