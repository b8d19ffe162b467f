/// semantics.md rule 17: which purchases the logs of a run can judge.
///
/// Bounds are UTC milliseconds since 1970, both inclusive. `--from`/`--to` window every purchase
/// (client-reported or Apple-listed, dated by the client's earliest `purchased` ts, else Apple's
/// purchase date). A purchase that only Apple lists is judged only where the app's own logs reach: from
/// the later of `--from` and `logStartMs` (the earliest client-report or server-log `ts`), and, when
/// `--to` is given, up to the earlier of `--to` and `logEndMs` (the newest such `ts`) — the logs cannot
/// show whether a purchase outside them was credited.
public struct AuditWindow: Sendable, Equatable {
    /// `--from`: the first instant judged; nil when not given.
    public var fromMs: Int64?
    /// `--to`: the last instant judged; nil when not given.
    public var toMs: Int64?
    /// The earliest client-report or server-log `ts`; nil when there are no logs.
    public var logStartMs: Int64?
    /// The newest client-report or server-log `ts`; nil when there are no logs.
    public var logEndMs: Int64?

    public init(fromMs: Int64? = nil, toMs: Int64? = nil, logStartMs: Int64? = nil, logEndMs: Int64? = nil) {
        (self.fromMs, self.toMs, self.logStartMs, self.logEndMs) = (fromMs, toMs, logStartMs, logEndMs)
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

    /// Where a purchase that only Apple lists, dated `ms`, falls outside the window: before `startMs`, or
    /// (with `--to`) after `appleOnlyEndMs`.
    public func outsideForAppleOnly(_ ms: Int64?) -> Outside? {
        guard let ms else { return nil }
        if let start = startMs, ms < start { return .beforeWindow }
        if let end = appleOnlyEndMs, ms > end { return .afterWindow }
        return nil
    }

    /// The window's start as judged for Apple-only purchases: the later of `--from` and the logs' start.
    public var startMs: Int64? { [fromMs, logStartMs].compactMap { $0 }.max() }

    /// The window's end for Apple-only purchases when `--to` is given: the earlier of `--to` and the logs'
    /// end; nil (no end) without `--to` (semantics.md rule 17).
    public var appleOnlyEndMs: Int64? { toMs.map { to in min(to, logEndMs ?? to) } }

    /// How the window reads, e.g. `2026-10-01T00:00:00.000Z to 2026-10-31T23:59:59.999Z` or
    /// `from 2026-10-01T00:00:04.000Z (the earliest log ts); no end`.
    public var description: String {
        let start =
            fromMs.map { "from \(Timestamp.iso($0))" } ?? logStartMs.map { "from \(Timestamp.iso($0)) (the earliest log ts)" }
            ?? "no start (no logs)"
        return start + (toMs.map { " to \(Timestamp.iso($0))" } ?? "; no end")
    }
}
