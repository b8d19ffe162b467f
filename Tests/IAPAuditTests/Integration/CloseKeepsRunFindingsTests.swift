import Foundation
import XCTest

/// A close values the period's findings (its window is the period: semantics.md rule 17) but leaves the ledger's own
/// findings — table `finding`, `audit.xlsx`, what `trace` judges by — as the run left them (docs/close.md). Found by a
/// support user test: after the README's `run` then `close --period 2026-10`, the sample's purchase of
/// 2026-11-01 02:30, a dropped order, was "outside the window" in `finding`, audit.xlsx and its trace.
final class CloseKeepsRunFindingsTests: XCTestCase {
    var sampleData: String { TestPaths.repoRoot + "/sample-data" }
    /// The purchase just after October that no log credited (sample-data/notifications.jsonl:4).
    let afterPeriod = "2000000400594857"

    /// The ledger's findings as (kind, reason, transaction_id, finding_id) lines, read with Python's sqlite3.
    func findings(_ out: String) throws -> [String] {
        try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(["|".join(r) for r in db.execute(
                    "SELECT kind, reason, transaction_id, finding_id FROM finding ORDER BY finding_id")]))
                """, args: [out + "/audit.sqlite"]) as? [String])
    }

    func testCloseLeavesTheRunsFindingsAndValuesThePeriods() throws {
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", "--out", out, sampleData]).status, 0)
        let before = try findings(out)
        try FileManager.default.copyItem(atPath: out + "/audit.xlsx", toPath: out + "/run.xlsx")
        XCTAssertEqual(before.count, 164)
        // Bought after the logs end: pending evidence (rule 26), the dropped order it would be once the server log passes it.
        XCTAssertTrue(before.contains { $0.hasPrefix("pending_evidence|awaiting_server_log|\(afterPeriod)|") }, "\(before)")
        let close = CLIRun(["close", "--period", "2026-10", "--prices", sampleData + "/prices.csv", "--out", out, sampleData])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertEqual(try findings(out), before, "the close changed the ledger's findings")
        // audit.xlsx is the run's, untouched.
        XCTAssertEqual(
            FileManager.default.contents(atPath: out + "/audit.xlsx"), FileManager.default.contents(atPath: out + "/run.xlsx"),
            "the close rewrote audit.xlsx")
        let trace = CLIRun(["trace", afterPeriod, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertTrue(trace.out.contains("  pending_evidence/awaiting_server_log "), trace.out)
        XCTAssertFalse(trace.out.contains("outside_window"), trace.out)
        // The close's losses are the period's: the purchase of November 1st is none of October's.
        let losses = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([r[0] for r in db.execute(
                    "SELECT transaction_id FROM close_loss WHERE period = '2026-10' AND kind = 'dropped_order' ORDER BY 1")]))
                """, args: [out + "/audit.sqlite"]) as? [String])
        XCTAssertFalse(losses.isEmpty)
        XCTAssertFalse(losses.contains(afterPeriod), "\(losses)")
    }

    /// A close given more than the last run had imports it, and leaves it to the next run to judge, as if that run had
    /// imported it (found by a user test: a close that stored findings of its own made the next run's lifecycle take an
    /// old line as what resolved 8 findings, and its one-time warnings were said by the close only):
    /// - the ledger's findings stay the last run's, and a trace of a transaction the new records name says it is not
    ///   judged yet;
    /// - the next run records what a run without the close would: its changes, and the warnings only an import finds
    ///   (an emptied file, alerting; a file no longer given).
    func testWhatACloseImportsIsJudgedByTheNextRun() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let (input, out, reference) = (root + "/input", root + "/out", root + "/reference")
        try FileManager.default.copyItem(atPath: sampleData, toPath: input)
        try FileManager.default.moveItem(atPath: input + "/notifications.jsonl", toPath: root + "/notifications.jsonl")
        XCTAssertEqual(CLIRun(["run", "--out", out, input]).status, 0)
        try FileManager.default.copyItem(atPath: out, toPath: reference)
        let first = try findings(out)
        XCTAssertFalse(first.contains { $0.contains("|\(afterPeriod)|") })
        // The next delivery: Apple's notifications, a client export that failed (empty), the config no longer given.
        try FileManager.default.moveItem(atPath: root + "/notifications.jsonl", toPath: input + "/notifications.jsonl")
        try Data().write(to: URL(fileURLWithPath: input + "/client.csv"))
        try FileManager.default.moveItem(atPath: input + "/history.jsonl", toPath: root + "/history.jsonl")
        let close = CLIRun(["close", "--period", "2026-10", "--out", out, input])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertTrue(close.err.contains("client.csv: holds no record now"), close.err)
        XCTAssertEqual(try findings(out), first, "the close changed the ledger's findings")
        let trace = CLIRun(["trace", afterPeriod, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertTrue(
            trace.out.contains(
                "1 evidence file(s) were imported after the ledger's last run (by a close, or a run that did not complete; first: "
                    + "\(input)/notifications.jsonl): their records are shown, but no finding judges them until the next run"),
            trace.out)
        XCTAssertTrue(
            trace.out.contains("next action: not judged: records of this transaction were imported after the ledger's last run"), trace.out)
        // The emptied export's records are gone: any finding may have rested on them (helper-37: a trace then advised
        // revoking a credit the timeline no longer showed).
        XCTAssertTrue(
            trace.out.contains(
                "1 file(s) the ledger's last run held lost their records since (emptied or forgotten, by a close or a run that did "
                    + "not complete; first: \(input)/client.csv)"), trace.out)
        let elsewhere = CLIRun(["trace", "2000000400594083", "--out", out])
        XCTAssertTrue(
            elsewhere.out.contains("next action: not judged: records the ledger's last run held were removed since"), elsewhere.out)
        // The next night, and the same night without the close.
        let night = CLIRun(["run", "--out", out, "--fail-on-rejected", input])
        let without = CLIRun(["run", "--out", reference, "--fail-on-rejected", input])
        XCTAssertEqual(night.status, 3, night.err)
        XCTAssertEqual(without.status, 3, without.err)
        XCTAssertEqual(try findings(out), try findings(reference))
        let judged = CLIRun(["trace", "2000000400594083", "--out", out])
        XCTAssertFalse(judged.out.contains("not judged"), judged.out)
        XCTAssertFalse(judged.out.contains("after the ledger's last run"), judged.out)
        XCTAssertFalse(judged.out.contains("lost their records"), judged.out)
        XCTAssertTrue(try findings(out).contains { $0.hasPrefix("pending_evidence|awaiting_server_log|\(afterPeriod)|") })
        XCTAssertTrue(
            night.err.contains(
                "alert: found by an earlier run that did not complete, or a close: \(input)/client.csv: holds no record now"), night.err)
        XCTAssertTrue(night.err.contains("\(input)/history.jsonl: not given this run"), night.err)
        let lifecycle = """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(json.dumps({
                "runs": db.execute("SELECT count(*) FROM audit_run").fetchone()[0],
                "state": [list(r) for r in db.execute(
                    "SELECT finding_id, status, first_seen_run, last_seen_run, resolved_run, resolved_at, resolved_evidence "
                    "FROM finding_state ORDER BY finding_id")],
                "history": [list(r) for r in db.execute("SELECT run, finding_id, event, detail FROM finding_history ORDER BY 1, 2, 3")],
                "warnings": [r[0] for r in db.execute("SELECT code FROM run_warning ORDER BY 1")]}))
            """
        let (closed, plain) = (
            try XCTUnwrap(try PythonReader.run(lifecycle, args: [out + "/audit.sqlite"]) as? [String: Any]),
            try XCTUnwrap(try PythonReader.run(lifecycle, args: [reference + "/audit.sqlite"]) as? [String: Any])
        )
        XCTAssertEqual(closed["runs"] as? Int, 2)
        XCTAssertEqual(closed as NSDictionary, plain as NSDictionary, "the close changed what the next run recorded")
    }

    /// A line the close rejected in a log that then grows again before the night is the night's to print and alert on,
    /// as it is without the close (helper-37: the night read the log from the close's end, took the line for an earlier
    /// run's, and `--fail-on-rejected` exited 0).
    func testALineTheCloseRejectedAlertsTheNightAfterTheLogGrewAgain() throws { try lineTheCloseRejected(growsAgain: true) }

    /// The same when the log does not change again: the night reads nothing of it, and the line is its to print as well
    /// as to alert on (helper-38: it said "1 of them read by earlier runs").
    func testALineTheCloseRejectedIsPrintedByTheNight() throws { try lineTheCloseRejected(growsAgain: false) }

    private func lineTheCloseRejected(growsAgain: Bool) throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        var nights: [CLIRun] = []
        for withClose in [true, false] {
            let (input, out) = (root + "/\(withClose)/input", root + "/\(withClose)/out")
            try FileManager.default.createDirectory(atPath: root + "/\(withClose)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sampleData, toPath: input)
            XCTAssertEqual(CLIRun(["run", "--out", out, input]).status, 0)
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: input + "/client.jsonl"))
            try log.seekToEnd()
            try log.write(
                contentsOf: Data(
                    #"{"ts":"2026-11-01T25:61:00Z","user_id":"u9","transaction_id":"2000000400999001","state":"purchased"}"#.utf8 + [10]))
            if withClose { XCTAssertEqual(CLIRun(["close", "--period", "2026-10", "--out", out, input]).status, 0) }
            if growsAgain {
                try log.write(
                    contentsOf: Data(
                        #"{"ts":"2026-11-02T10:00:00Z","user_id":"u9","transaction_id":"2000000400999003","product_id":"com.example.gems60","state":"purchased"}"#
                            .utf8 + [10]))
            }
            try log.close()
            nights.append(CLIRun(["run", "--out", out, "--fail-on-rejected", input]))
        }
        XCTAssertEqual(nights[0].status, 3, nights[0].err)
        XCTAssertEqual(nights[1].status, 3, nights[1].err)
        XCTAssertTrue(nights[0].err.contains("/true/input/client.jsonl:2391: error: field 'ts': not a timestamp"), nights[0].err)
        XCTAssertEqual(
            nights[0].err.replacingOccurrences(of: "/true/", with: "/x/"), nights[1].err.replacingOccurrences(of: "/false/", with: "/x/"))
    }

    /// Dropping files is the nightly run's decision: `close --forget-missing` is a usage error, and the ledger is untouched.
    func testCloseRefusesToForgetFiles() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let close = CLIRun(["close", "--period", "2026-10", "--forget-missing", "--out", out, sampleData])
        XCTAssertEqual(close.status, 64)
        XCTAssertTrue(close.err.contains("Error: --forget-missing is for run, not close"), close.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.sqlite"))
    }

    /// The close says what its run found of the files it brought, `user_id_missing` too (a renamed field).
    func testTheClosesRunSaysAUserIdMissing() throws {
        let (input, out) = (TestPaths.scratch("input"), TestPaths.scratch())
        try FileManager.default.copyItem(atPath: sampleData, toPath: input)
        let client = try String(contentsOfFile: input + "/client.jsonl", encoding: .utf8)
        try client.replacingOccurrences(of: "\"user_id\"", with: "\"uid\"").write(
            toFile: input + "/client.jsonl", atomically: true, encoding: .utf8)
        let close = CLIRun(["close", "--period", "2026-10", "--out", out, input])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertTrue(close.err.contains("\(input)/client.jsonl: none of its"), close.err)
    }
}
