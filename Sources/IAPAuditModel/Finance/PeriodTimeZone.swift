import Foundation

/// The time zone in which an accounting period's days begin and end (`--tz`): `UTC`, or any IANA
/// time zone name Foundation's `TimeZone` knows from the system's tz database (`America/Los_Angeles`:
/// Apple's Sales and Trends reports count calendar days in Pacific time).
///
/// Instants are UTC milliseconds since 1970. The one floating-point value here is Foundation's `Date`,
/// built from whole seconds to ask a zone's offset: exact (whole numbers below 2^53), and no money.
public struct PeriodTimeZone: Sendable, Hashable, CustomStringConvertible {
    /// The name as accepted: `UTC` or an IANA name (`America/Los_Angeles`).
    public let identifier: String
    /// Nil for UTC (no offset, no tz database needed).
    private let zone: TimeZone?

    /// Coordinated Universal Time.
    public static let utc = PeriodTimeZone(identifier: "UTC", zone: nil)

    private init(identifier: String, zone: TimeZone?) { (self.identifier, self.zone) = (identifier, zone) }

    /// What `--tz` accepts, for messages.
    public static let acceptedForms = "UTC or an IANA time zone name such as America/Los_Angeles (Apple's Sales reports: Pacific time)"

    /// Reads `--tz`: `UTC` (also `Etc/UTC`, `GMT`), or an IANA `Area/Location` name of the system's tz
    /// database. Abbreviations (`PST`, `CET`) are refused: Foundation reads `PST` as Los Angeles with
    /// daylight-saving time, not as UTC-8.
    /// - Throws: `PeriodError` naming the accepted forms.
    public init(parsing text: String) throws {
        if ["UTC", "Etc/UTC", "GMT", "Etc/GMT"].contains(text) {
            self = .utc
            return
        }
        guard text.contains("/"), let zone = TimeZone(identifier: text) else {
            throw PeriodError("--tz '\(text)': not a time zone this system knows; expected \(Self.acceptedForms)")
        }
        self.init(identifier: text, zone: zone)
    }

    /// The zone's offset from UTC in seconds at the instant `ms` (-25200 for Los Angeles in summer).
    public func offsetSeconds(atMs ms: Int64) -> Int {
        guard let zone else { return 0 }
        let seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000)
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The day an instant falls on in this zone.
    public func date(containing ms: Int64) -> CalendarDate {
        CalendarDate(utcMs: ms + Int64(offsetSeconds(atMs: ms)) * 1000)
    }

    /// The first instant of `date` in this zone, UTC milliseconds: its local midnight, or where a
    /// daylight-saving change skips midnight (clocks going from 23:59:59 to 01:00), the instant of the
    /// change. A local midnight that happens twice (clocks set back over it) is the earlier one.
    public func startMs(of date: CalendarDate) -> Int64 {
        let local = date.dayNumber * 86_400_000
        guard zone != nil else { return local }
        // The offsets in force a day before and a day after; a zone changes offset at most once between.
        let before = Int64(offsetSeconds(atMs: local - 86_400_000)) * 1000
        let after = Int64(offsetSeconds(atMs: local + 86_400_000)) * 1000
        let candidates = [local - before, local - after].filter { Int64(offsetSeconds(atMs: $0)) * 1000 == local - $0 }
        // No candidate: midnight was skipped; the day begins when the offset changed, at `local - before`.
        return candidates.min() ?? local - before
    }

    /// The identifier.
    public var description: String { identifier }
}

/// Why `--period`, `--calendar` or `--tz` cannot be read: one line naming the accepted forms.
public struct PeriodError: Error, Equatable, CustomStringConvertible {
    /// The message, one line.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
