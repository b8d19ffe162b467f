import IAPAuditReconcile
import IAPAuditStore

/// Which recorded runs each feed brought records to (`run --fail-on-stale-runs N`): a feed brought records to a run when
/// its newest record (client `ts`, server `ts`, Apple `received_at`) is newer than at the last recorded run.
///
/// Kept in two run parameters: `feed_runs` (per feed, as of the last recorded run: its newest record in UTC ms, and how many
/// recorded runs in a row up to that one it brought records to), and `feeds_stopped` (per feed this run brought nothing to:
/// how many runs in a row it had brought records to before; absent: none stopped). A feed counts once when it stops:
/// the next run it brings nothing to has 0 runs before it (the alert does not repeat every silent night). A run on the same
/// inputs and parameters as the last one (recorded as nothing: a retry after exit 75, a second run by hand) leaves both as
/// they were and repeats the last recorded run's verdict (found by an on-call user test: a retry paged every feed as
/// stopped, though they were hours old). A night nothing arrived at all is such a run too: `--fail-on-stale HOURS` pages it.
package struct FeedRuns: Sendable {
    package static let parameter = "feed_runs"
    package static let stoppedParameter = "feeds_stopped"

    /// Per feed: the newest record's time (UTC ms) and the recorded runs in a row it brought records to.
    package var feeds: [RecordFeed: (newestMs: Int64, runs: Int)] = [:]

    package init(feeds: [RecordFeed: (newestMs: Int64, runs: Int)] = [:]) { self.feeds = feeds }

    /// `feed_runs` as written by `text`: `serverLog=1760054400000/3,…` (unknown or malformed items are left out).
    package init(_ text: String?) {
        for item in (text ?? "").split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let feed = RecordFeed.allCases.first(where: { $0.code == parts[0] }) else { continue }
            let values = parts[1].split(separator: "/")
            guard values.count == 2, let newest = Int64(values[0]), let runs = Int(values[1]) else { continue }
            feeds[feed] = (newest, runs)
        }
    }

    package var text: String {
        RecordFeed.allCases.compactMap { feed in feeds[feed].map { "\(feed.code)=\($0.newestMs)/\($0.runs)" } }.joined(separator: ",")
    }

    /// This run's newest record of each feed (nil: none), from the reconciled outcome.
    static func newest(_ outcome: Reconciler.Outcome) -> [RecordFeed: Int64] {
        var newest: [RecordFeed: Int64] = [:]
        newest[.clientReports] = outcome.clientSpan?.upperBound
        newest[.serverLog] = outcome.serverSpan?.upperBound
        newest[.appleRecords] = outcome.newestReceivedMs
        return newest
    }

    /// The state after a recorded run, and the feeds that brought records to the last recorded run and none to this one,
    /// each with the recorded runs in a row it had brought records to (a feed already silent is not among them).
    static func after(_ before: FeedRuns, newest: [RecordFeed: Int64]) -> (state: FeedRuns, stopped: [RecordFeed: Int]) {
        var state = FeedRuns()
        var stopped: [RecordFeed: Int] = [:]
        for feed in RecordFeed.allCases {
            let last = before.feeds[feed]
            guard let now = newest[feed] else {
                if let last, last.runs > 0 { stopped[feed] = last.runs }
                continue
            }
            let brought = last.map { now > $0.newestMs } ?? true
            if !brought, let last, last.runs > 0 { stopped[feed] = last.runs }
            state.feeds[feed] = (now, brought ? (last?.runs ?? 0) + 1 : 0)
        }
        return (state, stopped)
    }

    /// The feeds the last recorded run brought nothing to that brought records to the run before (`feeds_stopped`): this
    /// run's, or, of a repeated run (the same inputs, recorded as nothing), the last recorded run's again.
    package static func stopped(parameters: [String: String]) -> [RecordFeed: Int] { stopped(parameters[stoppedParameter]) }

    /// `feeds_stopped`: `serverLog=2,…`.
    static func stoppedText(_ stopped: [RecordFeed: Int]) -> String {
        RecordFeed.allCases.compactMap { feed in stopped[feed].map { "\(feed.code)=\($0)" } }.joined(separator: ",")
    }

    /// `feeds_stopped` read back (unknown or malformed items left out).
    package static func stopped(_ text: String?) -> [RecordFeed: Int] {
        var stopped: [RecordFeed: Int] = [:]
        for item in (text ?? "").split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let feed = RecordFeed.allCases.first(where: { $0.code == parts[0] }), let runs = Int(parts[1])
            else { continue }
            stopped[feed] = runs
        }
        return stopped
    }
}
