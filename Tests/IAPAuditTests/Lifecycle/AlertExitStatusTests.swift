import Foundation
import XCTest

@testable import IAPAuditModel

/// `run --fail-on` and `--fail-on-stale` on the built binary: exit 3 when they alert, 0 when not, 1 when the run
/// could not complete, 64 for a bad value; the reasons on stderr and in `--json`'s `alert`.
final class AlertExitStatusTests: XCTestCase {
    typealias Day = NextDayCreditTests

    func testFindingsAlertWithExit3AndNothingElseDoes() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try Day.writeDays(feed)
        try FileManager.default.removeItem(atPath: feed + "/day2")
        let id = "dropped_order:\(Day.t1)"

        // A ledger's first run: every finding is new.
        let first = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", "new", "--json"])
        XCTAssertEqual(first.status, 3, first.err)
        let json = try JSONSerialization.jsonObject(with: Data(first.out.utf8)) as! [String: Any]
        XCTAssertEqual(NextDayCreditTests.canonical(json["alert"]), #"{"exit":3,"reasons":["1 new problem finding(s): \#(id)"]}"#)
        XCTAssertTrue(first.err.hasSuffix("iap-audit: alert: 1 new problem finding(s): \(id)\n"), first.err)

        for (rule, status) in [("any", Int32(3)), ("dropped_order", 3), ("duplicate_credit,sandbox_leak", 0), ("verification_backlog", 0)] {
            let run = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", rule])
            XCTAssertEqual(run.status, status, "--fail-on \(rule): \(run.err)")
        }
        // Nothing arrived since (the same files and parameters): the same alert, said as such.
        let again = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", "new"])
        XCTAssertEqual(again.status, 3, again.err)
        XCTAssertTrue(
            again.err.hasSuffix(
                "iap-audit: alert: nothing new since run 1 (the same files and parameters); as it found: 1 new problem finding(s): \(id)\n"),
            again.err)
        let plain = try BuiltBinary.run(["run", feed, "--out", out])
        XCTAssertEqual(plain.status, 0, "without --fail-on a run with findings completes with 0")
        XCTAssertFalse(plain.out.contains("Verdict"), "no verdict line without a rule")

        // A run that could not complete is 1, whatever the rules.
        let missing = try BuiltBinary.run(["run", root + "/missing", "--out", out, "--fail-on", "new", "--fail-on-stale", "1"])
        XCTAssertEqual(missing.status, 1, missing.err)

        // Usage errors: 64.
        for (arguments, message) in [
            (["--fail-on", "regranted"], "--fail-on: regranted is an info kind: info findings never alert"),
            (["--fail-on", "dropped"], "--fail-on: expected new, any, or finding kinds separated by commas"),
            (
                ["--fail-on", "dropped_orders"],
                "--fail-on: expected new, any, or finding kinds separated by commas (dropped_order, duplicate_credit, sandbox_leak, "
                    + "refund_still_granted, invalid_credit, verification_backlog): 'dropped_orders' (did you mean dropped_order?)\n"
            ),
            (["--fail-on", "new,dropped_order"], "--fail-on: new and any stand alone, not in a list of kinds"),
            (["--fail-on", "dropped_order,"], "--fail-on: expected new, any, or finding kinds separated by commas"),
            (["--fail-on-stale", "0"], "--fail-on-stale: not a number of hours above 0 and at most 87600: '0'"),
            (["--fail-on-stale", "1e3"], "--fail-on-stale: not a number of hours above 0 and at most 87600: '1e3'"),
        ] {
            let run = try BuiltBinary.run(["run", feed, "--out", out] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments)")
            XCTAssertTrue(run.err.hasPrefix("Error: " + message), run.err)
        }
        for arguments in [["ack", id, "--out", out], ["ack", "--note", "x", "--out", out], ["ack", id, "--note", " ", "--out", out]] {
            XCTAssertEqual(try BuiltBinary.run(arguments).status, 64, "\(arguments)")
        }
    }

    /// The stale alarm names the feed whose export stopped: client reports 48 hours old, the server log fresh.
    /// (Purchase 1000 never reached the server: a dropped order; request r1 for 2000, unanswered an hour: pending, info.)
    func testAStaleFeedAlertsByTheMachinesClock() throws {
        let root = TestPaths.scratch(), out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let now = Int64(Date().timeIntervalSince1970) * 1000
        let old = now - 48 * 3_600_000, recent = now - 3_600_000
        TestPaths.write(
            #"{"ts":\#(old),"user_id":"u1","transaction_id":"1000","product_id":"p","state":"purchased"}"# + "\n",
            to: root + "/client.jsonl")
        TestPaths.write(
            #"{"ts":\#(recent),"request_id":"r1","user_id":"u1","transaction_ids":["2000"],"granted":false}"# + "\n",
            to: root + "/server.jsonl")
        let stale = try BuiltBinary.run([
            "run", root + "/client.jsonl", root + "/server.jsonl", "--out", out, "--fail-on-stale", "24", "--json",
        ])
        XCTAssertEqual(stale.status, 3, stale.err)
        let reasons = try XCTUnwrap(
            ((try JSONSerialization.jsonObject(with: Data(stale.out.utf8)) as? [String: Any])?["alert"] as? [String: Any])?["reasons"]
                as? [String])
        XCTAssertEqual(reasons.count, 1, "\(reasons)")
        let reason = try XCTUnwrap(reasons.first)
        XCTAssertTrue(
            reason.hasPrefix(
                "client reports stale: the newest record (\(root)/client.jsonl:1, \(Timestamp.iso(old))) is 48.0 hours old by this machine's clock ("
            ),
            reason)
        XCTAssertTrue(reason.hasSuffix("), more than --fail-on-stale 24.0: has its export stopped?"), reason)
        XCTAssertTrue(stale.err.contains("iap-audit: alert: client reports stale: "), stale.err)

        let fresh = try BuiltBinary.run(["run", root + "/client.jsonl", root + "/server.jsonl", "--out", out, "--fail-on-stale", "72"])
        XCTAssertEqual(fresh.status, 0, fresh.err)
        XCTAssertTrue(fresh.out.hasPrefix("Verdict: ok, exit 0: nothing alerts\n"), fresh.out)

        // Both rules at once: every reason, findings first.
        let both = try BuiltBinary.run(
            ["run", root + "/client.jsonl", root + "/server.jsonl", "--out", out, "--fail-on", "any", "--fail-on-stale", "24"])
        XCTAssertEqual(both.status, 3)
        XCTAssertEqual(both.err.components(separatedBy: "iap-audit: alert: ").count - 1, 2, both.err)
        // The same files as the first run's: its findings, said as such.
        XCTAssertTrue(
            both.err.contains(
                "iap-audit: alert: nothing new since run 1 (the same files and parameters); as it found: 1 open problem finding(s): "
                    + "dropped_order:1000\n"), both.err)
    }

    /// A client report dated in the future (a skewed device clock; found at 1M: one line dated months ahead kept the
    /// client feed "fresh" until then) shows nothing of the export running now: left out of the stale check, and said.
    func testARecordDatedInTheFutureDoesNotKeepAFeedFresh() throws {
        let root = TestPaths.scratch(), out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let now = Int64(Date().timeIntervalSince1970) * 1000
        let old = now - 48 * 3_600_000, future = now + 180 * 24 * 3_600_000
        TestPaths.write(
            #"{"ts":\#(old),"user_id":"u1","transaction_id":"1000","product_id":"p","state":"purchased"}"# + "\n"
                + #"{"ts":\#(future),"user_id":"u2","transaction_id":"1001","product_id":"p","state":"purchased"}"# + "\n",
            to: root + "/client.jsonl")
        TestPaths.write(
            #"{"ts":\#(now - 3_600_000),"request_id":"r1","user_id":"u1","transaction_ids":["2000"],"granted":false}"# + "\n",
            to: root + "/server.jsonl")
        let run = try BuiltBinary.run(["run", root + "/client.jsonl", root + "/server.jsonl", "--out", out, "--fail-on-stale", "24"])
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(
            run.err.contains(
                "iap-audit: alert: client reports stale: the newest record (\(root)/client.jsonl:1, \(Timestamp.iso(old))) is 48.0 hours old "
            ), run.err)
        XCTAssertTrue(
            run.err.contains(
                "has its export stopped?; 1 record dated after this machine's clock left out (the first: \(root)/client.jsonl:2, "
                    + "\(Timestamp.iso(future)): a skewed clock?)\n"), run.err)
        XCTAssertFalse(run.err.contains("server log stale"), run.err)
    }

    /// `--fail-on-rejected`: lines rejected in the files a run brings alert (a truncated line, a gzip cut short);
    /// those of files the ledger held already do not, nor does a re-run.
    func testRejectedLinesOfTheNightsFilesAlert() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try Day.writeDays(feed)
        try FileManager.default.moveItem(atPath: feed + "/day2", toPath: root + "/later")
        let first = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertTrue(first.out.hasPrefix("Verdict: ok, exit 0: nothing alerts\n"), first.out)

        // Night 2 brings a client report cut mid-line and a gzip archive cut short.
        try FileManager.default.moveItem(atPath: root + "/later", toPath: feed + "/day2")
        TestPaths.write(
            Day.purchase("2026-10-02T13:00:00Z", "u4", "2000000000000004") + "\n" + #"{"ts":"2026-10-02T13:05:00Z","user_id":"u5","tra"#,
            to: feed + "/day2/client-late.jsonl")
        let lines = (0..<40).map { Day.purchase("2026-10-02T14:00:\(String(format: "%02d", $0))Z", "u9", "20000000000001\($0 + 10)") }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c > '\(root)/whole.gz' && head -c 300 '\(root)/whole.gz' > '\(feed)/day2/client-more.jsonl.gz'"]
        let input = Pipe()
        gzip.standardInput = input
        try gzip.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        gzip.waitUntilExit()
        let second = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on-rejected", "--json"])
        XCTAssertEqual(second.status, 3, second.err)
        let json = try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as! [String: Any]
        let reason =
            "2 line(s) rejected in 2 file(s) this run brought: \(feed)/day2/client-late.jsonl (1), \(feed)/day2/client-more.jsonl.gz (1). "
            + "A file still being written is read again once it has grown; deliver a damaged one again under the same name (it replaces "
            + "what was read; under another name its records add to the damaged file's, which stay until --forget-missing). Reasons: "
            + "table rejection in \(out)/audit.sqlite, the Rejected sheet"
        XCTAssertEqual(NextDayCreditTests.canonical(json["alert"]), NextDayCreditTests.canonical(["exit": 3, "reasons": [reason]]))
        XCTAssertTrue(second.err.contains("iap-audit: alert: " + reason + "\n"), second.err)

        // The same files again: nothing new was brought, nothing alerts (the rejections stay in the ledger).
        let again = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(again.status, 0, again.err)
    }

    /// An export that rewrote a file empty (found at 1M: 872,576 server-log records removed and 870,000 dropped orders
    /// paged, nothing naming the file): `input_emptied` says which file lost how many records, and `--fail-on-rejected`
    /// alerts with it; delivered again, its records come back and nothing alerts.
    func testAFileRewrittenEmptyIsNamedAndAlerts() throws {
        let (input, out) = try scratchSample()
        let server = input + "/server.jsonl"
        let kept = try Data(contentsOf: URL(fileURLWithPath: server))
        let first = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(first.status, 0, first.err)
        try Data().write(to: URL(fileURLWithPath: server))
        let emptied = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected", "--json"])
        XCTAssertEqual(emptied.status, 3, emptied.err)
        let message =
            "\(server): holds no record now (0 bytes): the 1,904 records the ledger held from it were removed with its old content (a "
            + "file rewritten in place replaces its records); a failed or cut export? Deliver it again under this name and run again: its "
            + "records come back"
        XCTAssertTrue(emptied.err.contains("iap-audit: warning: " + message + "\n"), emptied.err)
        XCTAssertTrue(emptied.err.contains("iap-audit: alert: " + message + "\n"), emptied.err)
        let json = try JSONSerialization.jsonObject(with: Data(emptied.out.utf8)) as! [String: Any]
        XCTAssertEqual(NextDayCreditTests.canonical(json["alert"]), NextDayCreditTests.canonical(["exit": 3, "reasons": [message]]))
        XCTAssertEqual(
            try PythonReader.run(
                "import json, sqlite3, sys\nprint(json.dumps(sqlite3.connect(sys.argv[1]).execute(\"SELECT code, message FROM "
                    + "run_warning WHERE code = 'input_emptied'\").fetchall()))", args: [out + "/audit.sqlite"]) as? [[String]],
            [["input_emptied", message]], "the warning is in the ledger too")

        try kept.write(to: URL(fileURLWithPath: server))
        let back = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(back.status, 0, back.err)
        XCTAssertFalse(back.err.contains("holds no record now"), back.err)
    }

    /// A client export that renamed `user_id` (to `userId`): read without error before, every finding on it naming
    /// nobody (found at 1M by an on-call user test); now `user_id_missing` says so and `--fail-on-rejected` alerts.
    func testAFileWhoseRecordsAllLackAUserIsNamedAndAlerts() throws {
        let (input, out) = try scratchSample()
        let client = input + "/client.jsonl"
        let text = try String(contentsOfFile: client, encoding: .utf8)
        TestPaths.write(text.replacingOccurrences(of: "\"user_id\":", with: "\"userId\":"), to: client)
        let run = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(run.status, 3, run.err)
        let message =
            "\(client): none of its 2,390 client reports has a user_id (an export that renamed or dropped the field?): read without error, "
            + "but the findings on them name no user, and trace cannot say whom to credit; fix the export and deliver the file again under "
            + "this name"
        XCTAssertTrue(run.err.contains("iap-audit: warning: " + message + "\n"), run.err)
        XCTAssertTrue(run.err.contains("iap-audit: alert: " + message + "\n"), run.err)
        XCTAssertFalse(run.err.contains("server.jsonl: none of its"), "the server log names its users")

        // Fixed and delivered again under the same name: nothing alerts.
        TestPaths.write(text, to: client)
        let fixed = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(fixed.status, 0, fixed.err)
    }

    /// A feed the ledger held records of and holds none now (its only file rewritten empty, night after night), and a
    /// feed whose only records are dated after the clock, are stale (found by an on-call retest: both passed silently,
    /// the emptied log paged once and never again).
    func testAFeedWithNoRecordLeftOrOnlyFutureOnesIsStale() throws {
        let (input, out) = try scratchSample()
        let stale = ["run", input, "--out", out, "--fail-on-stale", "87600"]
        XCTAssertEqual(try BuiltBinary.run(stale).status, 0)
        try Data().write(to: URL(fileURLWithPath: input + "/server.jsonl"))
        for night in 1...2 {
            let run = try BuiltBinary.run(stale)
            XCTAssertEqual(run.status, 3, "night \(night): \(run.err)")
            XCTAssertTrue(
                run.err.contains(
                    "iap-audit: alert: server log stale: the ledger holds none of its records now, though it held some at an earlier run "
                        + "(its files emptied, or forgotten with --forget-missing?): has its export stopped?\n"), run.err)
        }

        let future = Int64(Date().timeIntervalSince1970) * 1000 + 30 * 24 * 3_600_000
        TestPaths.write(
            #"{"ts":\#(future),"user_id":"u2","transaction_id":"1001","product_id":"p","state":"purchased"}"# + "\n",
            to: input + "/client.jsonl")
        let skewed = try BuiltBinary.run(stale)
        XCTAssertEqual(skewed.status, 3, skewed.err)
        XCTAssertTrue(
            skewed.err.contains(
                "iap-audit: alert: client reports stale: no record dated at or before this machine's clock ("), skewed.err)
        XCTAssertTrue(
            skewed.err.contains(
                "); 1 record dated after this machine's clock left out (the first: \(input)/client.jsonl:1, \(Timestamp.iso(future)): a "
                    + "skewed clock?)\n"), skewed.err)
    }
}
