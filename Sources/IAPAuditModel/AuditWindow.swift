/// SEMANTICS rule 17: which purchases the logs of a run can judge.
///
/// Bounds are UTC milliseconds since 1970, both inclusive. `--from`/`--to` window every purchase
/// (client-reported or Apple-listed, dated by the client's earliest `purchased` ts, else Apple's
/// purchase date); without `--from`, a purchase that only Apple lists is judged from `logStartMs`,
/// the earliest client-report or server-log `ts` (what the app's own logs cover).
public struct AuditWindow: Sendable, Equatable {
    /// `--from`: the first instant judged; nil when not given.
    public var fromMs: Int64?
    /// `--to`: the last instant judged; nil when not given.
    public var toMs: Int64?
    /// The earliest client-report or server-log `ts`; nil when there are no logs.
    public var logStartMs: Int64?

    public init(fromMs: Int64? = nil, toMs: Int64? = nil, logStartMs: Int64? = nil) {
        (self.fromMs, self.toMs, self.logStartMs) = (fromMs, toMs, logStartMs)
    }

    /// Where an instant falls outside the window.
    public enum Outside: String, Sendable {
        case beforeWindow = "before_window"
        case afterWindow = "after_window"
    }

    /// Where a purchase the client reported (or any judged event) dated `ms` falls outside
    /// `--from`/`--to`; nil inside, or when it has no date.
    public func outside(_ ms: Int64?) -> Outside? {
        guard let ms else { return nil }
        if let fromMs, ms < fromMs { return .beforeWindow }
        if let toMs, ms > toMs { return .afterWindow }
        return nil
    }

    /// Where a purchase that only Apple lists, dated `ms`, falls outside the window: before `--from`,
    /// else before the logs' start, or after `--to`.
    public func outsideForAppleOnly(_ ms: Int64?) -> Outside? {
        guard let ms else { return nil }
        if let start = fromMs ?? logStartMs, ms < start { return .beforeWindow }
        if let toMs, ms > toMs { return .afterWindow }
        return nil
    }

    /// The window's start as judged for Apple-only purchases: `--from`, else the logs' start.
    public var startMs: Int64? { fromMs ?? logStartMs }

    /// How the window reads, e.g. `2026-10-01T00:00:00.000Z to 2026-10-31T23:59:59.999Z` or
    /// `from 2026-10-01T00:00:04.000Z (the earliest log ts); no end`.
    public var description: String {
        let start =
            fromMs.map { "from \(Timestamp.iso($0))" } ?? logStartMs.map { "from \(Timestamp.iso($0)) (the earliest log ts)" }
            ?? "no start (no logs)"
        return start + (toMs.map { " to \(Timestamp.iso($0))" } ?? "; no end")
    }
}
