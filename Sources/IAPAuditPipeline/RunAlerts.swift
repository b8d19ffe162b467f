import Foundation
import IAPAuditIngest
import IAPAuditModel
import IAPAuditStore

/// When a run should page (`run --fail-on`, `--fail-on-stale`, `--fail-on-stale-runs`; docs/operations.md).
public struct AlertRules: Sendable, Equatable {
    /// Which findings alert: `new` (new or reopened this run), `any` (open), or open findings of these kinds.
    /// Problem kinds only: info findings never alert, nor do acknowledged ones.
    public enum FailOn: Sendable, Equatable {
        case new
        case any
        case kinds([FindingKind])
    }

    public var failOn: FailOn?
    /// The newest record of a feed (client reports, server log, Apple records) older than this many hours
    /// by the machine's clock alerts: an upstream export stopped.
    public var staleHours: Double?
    /// A feed that brought records to each of the last this many recorded runs and none to this one alerts (`FeedRuns`):
    /// an export stopped, said the first run it brings nothing, whatever the feed's usual pace.
    public var staleRuns: Int?
    /// Lines rejected in the files this run brought (new, changed or grown: `RunChanges.newFiles`), and a file the
    /// ledger held records from rewritten with none (`input_emptied`), alert: an upstream export wrote lines the run
    /// could not read or nothing at all, or an archive arrived cut short.
    public var failOnRejected = false

    public init(failOn: FailOn? = nil, staleHours: Double? = nil, failOnRejected: Bool = false, staleRuns: Int? = nil) {
        (self.failOn, self.staleHours, self.failOnRejected, self.staleRuns) = (failOn, staleHours, failOnRejected, staleRuns)
    }
}

/// A run's verdict: exit status 0 (nothing alerts) or 3 (an alert), and why, one sentence a reason.
public struct RunVerdict: Sendable, Equatable {
    public var exit: Int32
    public var reasons: [String]

    public init(exit: Int32, reasons: [String]) { (self.exit, self.reasons) = (exit, reasons) }
}

/// Judges a completed run by its alert rules.
public enum RunAlerts {
    /// The exit status of a run that completed and alerts.
    public static let alertExit: Int32 = 3
    /// Ids named in one reason, at most (the Changes sheet, `--json` and the ledger have them all).
    static let namedIds = 10

    /// - Parameter nowMs: the machine's clock, ms since 1970 UTC (the stale check's "now").
    /// Throws `SQLiteError` when the ledger cannot be read for the stale check.
    public static func verdict(_ result: AuditResult, rules: AlertRules, nowMs: Int64) throws -> RunVerdict {
        var reasons: [String] = []
        if let failOn = rules.failOn, let changes = result.snapshot.changes {
            // Nothing arrived (an empty night): the same findings alert again, said as such.
            let again = changes.repeated ? "nothing new since run \(changes.run) (the same files and parameters); as it found: " : ""
            reasons += findingReasons(changes, failOn).map { again + $0 }
        }
        if rules.failOnRejected, let changes = result.snapshot.changes {
            reasons += rejectedReasons(
                result.snapshot.files, newFiles: Set(changes.newFiles), read: result.read, databasePath: result.databasePath)
            reasons += unrecognizedReasons(result.snapshot.files, newFiles: Set(changes.newFiles))
            reasons += notUTF8NameReasons(result.snapshot.files, newFiles: Set(changes.newFiles))
            // A file rewritten empty lost every record it held: as much lost data as a rejected line.
            // So did a file whose records all lack a user (a renamed field): as good as a rejected field; and a path
            // given that cannot be read (a dangling symbolic link where an export was): nothing of it is read.
            let alerting: Set<RunWarning.Code> = [.inputEmptied, .userIdMissing, .inputUnreadable]
            reasons += result.warnings.filter { alerting.contains($0.code) }.map(\.message)
            // A forged or broken signature in a file this run brought: as much a bad line as a rejected one.
            let brought = Set(changes.newFiles)
            reasons += result.warnings.filter { $0.code == .signatureFailed && $0.file.map(brought.contains) == true }.map(\.message)
        }
        if let hours = rules.staleHours {
            reasons += staleReasons(
                try AuditStore.newestRecords(path: result.databasePath, notAfterMs: nowMs),
                seen: RecordFeed.seen(result.snapshot.parameters["feeds_seen"]), hours: hours, nowMs: nowMs)
        }
        if let runs = rules.staleRuns {
            let stopped = FeedRuns.stopped(parameters: result.snapshot.parameters)
            reasons += try stoppedReasons(stopped, runs: runs, databasePath: result.databasePath)
        }
        return RunVerdict(exit: reasons.isEmpty ? 0 : alertExit, reasons: reasons)
    }

    /// The feeds this run brought no record to that brought records to each of the last `runs` recorded runs (or more),
    /// each named with its newest record in the ledger (`file:line`, time) when it still holds one.
    /// Throws `SQLiteError` when the ledger cannot be read.
    static func stoppedReasons(_ stopped: [RecordFeed: Int], runs: Int, databasePath: String) throws -> [String] {
        let alerting = RecordFeed.allCases.filter { stopped[$0].map { $0 >= runs } == true }
        guard !alerting.isEmpty else { return [] }
        let newest = try AuditStore.newestRecords(path: databasePath, notAfterMs: Int64.max)
        return alerting.map { feed in
            let record = newest.first { $0.feed == feed }?.newest
            let last =
                record.map { "its newest record: \($0.location), \(Timestamp.iso($0.ms))" } ?? "the ledger holds none of its records now"
            return "\(feed.rawValue) stopped: it brought records to each of the last \(stopped[feed]!) recorded run(s) and none to "
                + "this one (\(last); --fail-on-stale-runs \(runs)): has its export stopped?"
        }
    }

    /// The findings that alert under `failOn`: open (not acknowledged) problem findings of this run.
    static func findingReasons(_ changes: RunChanges, _ failOn: AlertRules.FailOn) -> [String] {
        // Event, kind and id only: a night that lost a log has as many open findings as the ledger has.
        let open = changes.changes.lazy.filter { $0.event != .resolved && $0.state.status == .open && $0.state.isProblem }
            .map { (event: $0.event, kind: $0.state.kind, id: $0.state.id) }
        switch failOn {
        case .new:
            let unpaged = changes.undelivered.filter { $0.state.status == .open && $0.state.isProblem }.map(\.state.id)
            return [LifecycleEvent.new, .reopened].compactMap { event in
                let ids = Array(open.filter { $0.event == event }.map(\.id))
                return ids.isEmpty ? nil : "\(ids.count) \(event == .new ? "new" : "reopened") problem finding(s): \(named(ids))"
            }
                + (unpaged.isEmpty
                    ? []
                    : [
                        "\(unpaged.count) problem finding(s) new since a run that did not complete (killed or failed after "
                            + "storing them; never paged): \(named(unpaged))"
                    ])
        case .any:
            let ids = Array(open.map(\.id))
            return ids.isEmpty ? [] : ["\(ids.count) open problem finding(s): \(named(ids))"]
        case .kinds(let kinds):
            return kinds.compactMap { kind in
                let ids = Array(open.filter { $0.kind == kind.rawValue }.map(\.id))
                return ids.isEmpty ? nil : "\(ids.count) open \(kind.rawValue) finding(s): \(named(ids))"
            }
        }
    }

    /// The files this run brought with rejected lines (a damaged archive's rest is one rejected line): of a file this
    /// run read, the lines it read (a grown log's new ones: its old rejections alerted the night they came); of one it
    /// brought without reading it (read by a run that did not complete), all.
    static func rejectedReasons(
        _ files: [FileSummary], newFiles: Set<String>, read: [String: LedgerImporter.FileRead], databasePath: String
    ) -> [String] {
        let rejected = files.filter { newFiles.contains($0.path) }.map { ($0.path, read[$0.path]?.rejected ?? $0.recordsRejected) }
            .filter { $0.1 > 0 }
        guard !rejected.isEmpty else { return [] }
        let total = rejected.reduce(0) { $0 + $1.1 }
        let named = rejected.prefix(namedIds).map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
        return [
            "\(total) line(s) rejected in \(rejected.count) file(s) this run brought: \(named)"
                + (rejected.count > namedIds ? " … and \(rejected.count - namedIds) more" : "")
                + ". A file still being written is read again once it has grown; deliver a damaged one again under the same "
                + "name (it replaces what was read; under another name its records add to the damaged file's, which stay until "
                + "--forget-missing). Reasons: table rejection in \(databasePath), the Rejected sheet"
        ]
    }

    /// Names of the files an export delivers: a file so named whose content is none iap-audit recognizes is a damaged
    /// delivery, not a stray file (a README, a certificate: other notes).
    /// (`.txt` is not one: a README.)
    static let inputExtensions: Set<String> = ["jsonl", "ndjson", "json", "csv", "tsv", "log", "gz"]

    /// Files this run brought, named as inputs (`inputExtensions`, or a rotated `name.jsonl.1`), skipped as content iap-audit
    /// does not recognize: nothing of them is read (found by an on-call user test: random bytes as a new day's `server.jsonl`
    /// were skipped without an alert, while the same bytes over a file the ledger held alerted as `input_emptied`).
    static func unrecognizedReasons(_ files: [FileSummary], newFiles: Set<String>) -> [String] {
        let named = files.filter { f in
            // Content no reader knows (`gzip: unrecognized content` inside a valid archive too), or JSON of no known shape (a
            // day's client reports whose fields were renamed: found by a retest).
            guard newFiles.contains(f.path), f.status == "skipped",
                f.note.contains(BinaryShape.unrecognized) || f.note.contains(RecordShape.unrecognizedShape)
            else { return false }
            let parts = URL(fileURLWithPath: f.path).lastPathComponent.lowercased().split(separator: ".")
            return parts.dropFirst().contains { inputExtensions.contains(String($0)) }
        }.map(\.path)
        guard !named.isEmpty else { return [] }
        return [
            "\(named.count) file(s) this run brought, named as inputs, hold content iap-audit does not recognize (not read): "
                + named.prefix(namedIds).joined(separator: ", ") + (named.count > namedIds ? " … and \(named.count - namedIds) more" : "")
                + ". A damaged or mis-compressed delivery (bzip2, zstd)? Deliver it again under the same name"
        ]
    }

    /// Files this run brought whose name is not UTF-8 (`InputCollector.notUTF8Name`): refused, nothing of them read.
    static func notUTF8NameReasons(_ files: [FileSummary], newFiles: Set<String>) -> [String] {
        let named = files.filter { newFiles.contains($0.path) && $0.status == "skipped" && $0.note == InputCollector.notUTF8Name }
            .map(\.path)
        guard !named.isEmpty else { return [] }
        return [
            "\(named.count) file(s) this run brought have a name that is not UTF-8 (not read; shown with \\xNN): "
                + named.prefix(namedIds).joined(separator: ", ") + (named.count > namedIds ? " … and \(named.count - namedIds) more" : "")
                + ". Rename them to read them"
        ]
    }

    /// A feed whose newest record is older than `hours` before `nowMs`, or which has none dated before then (every one
    /// after the clock), or none left though an earlier run held some (`seen`); no timed record at all alerts too.
    static func staleReasons(_ newest: [NewestRecord], seen: Set<RecordFeed> = [], hours: Double, nowMs: Int64) -> [String] {
        guard !newest.isEmpty || !seen.isEmpty else {
            return ["no record with a time in the ledger (client reports, server log, Apple records): nothing shows the exports run"]
        }
        let limitMs = Int64(hours * 3_600_000)
        var reasons: [String] = []
        for feed in RecordFeed.allCases {
            guard let record = newest.first(where: { $0.feed == feed }) else {
                if seen.contains(feed) {
                    reasons.append(
                        "\(feed.rawValue) stale: the ledger holds none of its records now, though it held some at an earlier run "
                            + "(its files emptied, or forgotten with --forget-missing?): has its export stopped?")
                }
                continue
            }
            // A record dated after the clock (a skewed device) shows nothing of the export running now: left out, said.
            var later = ""
            if let first = record.firstLater {
                later =
                    "\(CountText.counted(Int64(record.later), "record")) dated after this machine's clock left out (the first: "
                    + "\(first.location), \(Timestamp.iso(first.ms)): a skewed clock?)"
            }
            guard let newest = record.newest else {
                reasons.append(
                    "\(feed.rawValue) stale: no record dated at or before this machine's clock (\(Timestamp.iso(nowMs))); " + later)
                continue
            }
            guard nowMs - newest.ms > limitMs else { continue }
            reasons.append(
                "\(feed.rawValue) stale: the newest record (\(newest.location), \(Timestamp.iso(newest.ms))) is "
                    + "\(hoursText(nowMs - newest.ms)) hours old by this machine's clock (\(Timestamp.iso(nowMs))), more than "
                    + "--fail-on-stale \(hoursText(limitMs)): has its export stopped?" + (later.isEmpty ? "" : "; " + later))
        }
        return reasons
    }

    /// Hours with one decimal.
    static func hoursText(_ ms: Int64) -> String { String(format: "%.1f", Double(ms) / 3_600_000) }

    static func named(_ ids: [String]) -> String {
        ids.prefix(namedIds).joined(separator: ", ") + (ids.count > namedIds ? " … and \(ids.count - namedIds) more" : "")
    }
}
