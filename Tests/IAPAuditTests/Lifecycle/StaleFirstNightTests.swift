import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// A stopped export said the first night (docs/operations.md, Alerts): `--fail-on-stale` under 24 hours for a daily run,
/// and `--fail-on-stale-runs N`, which counts runs, not hours; and the nightly mail, its verdict first.
final class StaleFirstNightTests: XCTestCase {
    static let hour: Int64 = 3_600_000

    /// A daily export of the day before's server log, run at 06:30 UTC: its newest record is 23:59 of the day before.
    /// It stops after day 3: the runs of day 5 on find day 3's record newest. `HOURS` under 24 alerts on day 5 (the first
    /// silent night), 36 only on day 6 (a night late, as the issue saw), never on a normal night.
    func testAThresholdUnder24HoursFiresTheFirstSilentNight() throws {
        let day = { (n: Int64) in Timestamp.parseMs("2026-10-0\(n)T00:00:00Z")! }
        let newest = { (lastDelivered: Int64) in
            [
                NewestRecord(
                    feed: .serverLog, newest: (day(lastDelivered) + 24 * Self.hour - 60_000, SourceLocation(file: "server.jsonl", line: 9)))
            ]
        }
        let run = { (n: Int64) in day(n) + 6 * Self.hour + 30 * 60_000 }
        // Normal nights: day n's run reads the log up to day n-1's end.
        for n: Int64 in 2...4 {
            XCTAssertEqual(RunAlerts.staleReasons(newest(n - 1), hours: 20, nowMs: run(n)), [], "day \(n): 6.5 h old")
        }
        // The export stopped after day 3: day 5's run still finds day 3's newest record.
        let firstSilent = RunAlerts.staleReasons(newest(3), hours: 20, nowMs: run(5))
        XCTAssertEqual(firstSilent.count, 1)
        XCTAssertTrue(
            firstSilent[0].hasPrefix("server log stale: the newest record (server.jsonl:9, 2026-10-03T23:59:00.000Z) is 30.5 hours old"),
            "\(firstSilent)")
        XCTAssertEqual(RunAlerts.staleReasons(newest(3), hours: 36, nowMs: run(5)), [], "36: no alert the first silent night")
        XCTAssertEqual(RunAlerts.staleReasons(newest(3), hours: 36, nowMs: run(6)).count, 1, "36: the alert a night late (54.5 h)")
    }

    /// The sample cut by day (`NightlyFeed`); run k is given days 1…k. The server log stops after day 2.
    private func runs(stopping name: String, after lastDay: Int, nights: Int, rule: String) throws -> [CLIRun] {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let days = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        var runs: [CLIRun] = []
        for night in 0..<nights {
            try days.deliver(night, into: feed)
            if night >= lastDay { try? FileManager.default.removeItem(atPath: feed + "/" + days.days[night].day + "/" + name) }
            runs.append(CLIRun(["run", feed, "--out", out, "--fail-on-stale-runs", rule]))
        }
        return runs
    }

    /// With N = 2: the server log brings records to runs 1 and 2 and none to run 3: run 3 alerts, naming the feed and its
    /// newest record; runs 1 and 2 do not, nor run 4 (the feed already silent), nor run 5 with N = 1.
    func testAFeedThatStopsAlertsOnItsFirstSilentRunOnly() throws {
        let runs = try runs(stopping: "server.jsonl", after: 2, nights: 4, rule: "2")
        XCTAssertEqual(runs.map(\.status), [0, 0, 3, 0], runs.map(\.err).joined(separator: "\n---\n"))
        let alerts = runs[2].err.components(separatedBy: "\n").filter { $0.hasPrefix("iap-audit: alert: ") }
        XCTAssertEqual(alerts.count, 1, runs[2].err)
        let day2 = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data").days[1].day
        let alert = try XCTUnwrap(alerts.first)
        XCTAssertTrue(
            alert.hasPrefix(
                "iap-audit: alert: server log stopped: it brought records to each of the last 2 recorded run(s) and none to this one "
                    + "(its newest record: "), alert)
        XCTAssertTrue(alert.contains("/feed/\(day2)/server.jsonl:"), alert)
        XCTAssertTrue(alert.hasSuffix("; --fail-on-stale-runs 2): has its export stopped?"), alert)
        XCTAssertTrue(runs[2].out.hasPrefix("Verdict: alert, exit 3:\n  server log stopped: "), runs[2].out)
    }

    /// A run on the same files (a retry after exit 75, a second run by hand: a repeated run, which records nothing) repeats
    /// the last recorded run's verdict: no feed stopped, the ledger's parameters as they were (found by an on-call user
    /// test: the cron line's retry paged every feed as stopped). A night nothing arrived at all is paged by
    /// `--fail-on-stale HOURS`: every feed is older than the threshold.
    func testARepeatedRunRepeatsTheLastVerdictAndANightNothingArrivedIsStale() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let days = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        for night in 0..<2 {
            try days.deliver(night, into: feed)
            XCTAssertEqual(CLIRun(["run", feed, "--out", out, "--fail-on-stale-runs", "2"]).status, 0)
        }
        let stored = try AuditStore(path: out + "/audit.sqlite").runParameter(FeedRuns.parameter)
        let again = CLIRun(["run", feed, "--out", out, "--fail-on-stale-runs", "2"])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertFalse(again.err.contains("stopped"), again.err)
        XCTAssertEqual(try AuditStore(path: out + "/audit.sqlite").runParameter(FeedRuns.parameter), stored)
        // The data's last day is weeks before this machine's clock: as a night nothing arrived, every feed is stale.
        let silent = CLIRun(["run", feed, "--out", out, "--fail-on-stale-runs", "2", "--fail-on-stale", "20"])
        XCTAssertEqual(silent.status, 3, silent.err)
        let alerts = silent.err.components(separatedBy: "\n").filter { $0.hasPrefix("iap-audit: alert: ") }
        XCTAssertEqual(
            alerts.map { String($0.dropFirst("iap-audit: alert: ".count).prefix { $0 != ":" }) },
            ["client reports stale", "server log stale", "Apple records stale"], silent.err)
    }

    /// A feed that brought records to one run only is not enough for N = 2 (no alert when it stops), and is for N = 1.
    func testNCountsTheRunsInARowBeforeTheStop() throws {
        XCTAssertEqual(try runs(stopping: "server.jsonl", after: 1, nights: 3, rule: "2").map(\.status), [0, 0, 0])
        XCTAssertEqual(try runs(stopping: "server.jsonl", after: 1, nights: 3, rule: "1").map(\.status), [0, 3, 0])
    }

    /// The feeds' state through runs: brought (the newest record newer), stopped (with the runs before), a repeated run
    /// judged from the last recorded one's state.
    func testFeedRunsCountsRunsInARow() {
        var state = FeedRuns()
        var stopped: [RecordFeed: Int] = [:]
        for newest: Int64 in [10, 20, 30] {
            (state, stopped) = FeedRuns.after(state, newest: [.serverLog: newest, .clientReports: newest])
            XCTAssertEqual(stopped, [:])
        }
        XCTAssertEqual(state.text, "clientReports=30/3,serverLog=30/3")
        (state, stopped) = FeedRuns.after(state, newest: [.serverLog: 30, .clientReports: 40])
        XCTAssertEqual(stopped, [.serverLog: 3])
        XCTAssertEqual(state.text, "clientReports=40/4,serverLog=30/0")
        // A repeated run (the same inputs, which stores nothing) is judged as the last recorded run was.
        let parameters = [FeedRuns.parameter: state.text, FeedRuns.stoppedParameter: FeedRuns.stoppedText(stopped)]
        XCTAssertEqual(FeedRuns.stopped(parameters: parameters), [.serverLog: 3])
        (state, stopped) = FeedRuns.after(state, newest: [.clientReports: 50])
        XCTAssertEqual(stopped, [:], "the server log was silent already (and holds no record now)")
        XCTAssertEqual(state.text, "clientReports=50/5")
        XCTAssertEqual(FeedRuns(state.text).text, state.text)
        XCTAssertEqual(FeedRuns.stopped(FeedRuns.stoppedText([.serverLog: 3, .appleRecords: 1])), [.serverLog: 3, .appleRecords: 1])
    }

    /// The nightly mail (the text summary) leads with the verdict: the changes (problem findings first), the alert, then
    /// each warning once; the parameters, inputs and findings after.
    func testTheSummaryLeadsWithTheVerdictThenEachCaveatOnce() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let sample = TestPaths.repoRoot + "/sample-data"
        for night in 1...2 {
            let run = CLIRun(["run", sample, "--out", out, "--fail-on", "new"])
            XCTAssertEqual(run.status, 3, run.err)
            let lines = run.out.components(separatedBy: "\n")
            XCTAssertEqual(lines.first, "Verdict: alert, exit 3:")
            XCTAssertTrue(
                run.out.contains(
                    night == 1
                        ? "\nChanges: run 1, the ledger's first run (every finding is new):\n"
                        : "\nChanges: run 1 again (the same inputs and parameters: nothing recorded), the ledger's first run (every finding is new):\n"
                ), run.out)
            let order = [
                "Verdict: alert, exit 3:", "Changes: run 1", "  open now: ", "Caveats (2; said every run while they hold):",
                "iap-audit run: as of ",
                "Inputs (", "Findings: ",
            ]
            let at = order.map { prefix in lines.firstIndex { $0.hasPrefix(prefix) } ?? -1 }
            XCTAssertEqual(at, at.sorted(), "\(order) at \(at)")
            XCTAssertFalse(at.contains(-1), "\(at)")
            // Problem findings fill the listed lines first.
            let listed = lines.filter { $0.hasPrefix("  new        ") && !$0.hasPrefix("  new        … and ") }
            XCTAssertEqual(listed.count, 20)
            XCTAssertEqual(listed.filter { $0.contains("dropped_order:") || $0.contains("duplicate_credit:") }.count, 20, "\(listed)")
            // Each warning once in the summary, as on stderr.
            let warnings = run.err.components(separatedBy: "\n").filter { $0.hasPrefix("iap-audit: warning: ") }
            XCTAssertEqual(warnings.count, 2, run.err)
            for warning in warnings {
                let message = "  " + warning.dropFirst("iap-audit: warning: ".count)
                XCTAssertEqual(lines.filter { $0 == message }.count, 1, message)
            }
        }
    }
}
