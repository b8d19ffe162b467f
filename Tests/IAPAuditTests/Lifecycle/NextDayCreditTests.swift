import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// A dropped order whose credit arrives the next day, the log of that day rotated away, a re-run and an
/// acknowledgement: the ledger's lifecycle read back with Python's sqlite3, exact values.
final class NextDayCreditTests: XCTestCase {
    static let t1 = "2000000000000001", t2 = "2000000000000002", t3 = "2000000000000003"

    static func answer(_ request: String, _ at: String, _ t: String) -> String {
        #"{"request_id":"\#(request)","received_at":"\#(at)","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example.app","in_app":[{"transaction_id":"\#(t)","original_transaction_id":"\#(t)","product_id":"com.example.gems60","quantity":"1"}]}}}"#
    }

    static func request(_ id: String, _ at: String, _ user: String, _ t: String) -> String {
        #"{"ts":"\#(at)","request_id":"\#(id)","user_id":"\#(user)","transaction_ids":["\#(t)"],"granted":true,"verify_status":0,"environment":"Production"}"#
    }

    static func purchase(_ at: String, _ user: String, _ t: String) -> String {
        #"{"ts":"\#(at)","user_id":"\#(user)","transaction_id":"\#(t)","product_id":"com.example.gems60","state":"purchased"}"#
    }

    /// Day 1: u1's T1, bought the day before, never reached the server (a dropped order: the log runs a day past it,
    /// rule 26); u2's T2 is credited.
    /// Day 2: the server credits T1 at 09:00 (Apple answers a second later); u3's T3, bought before day 1 and reported late,
    /// was never sent (the log runs a day past it).
    static func writeDays(_ feed: String) throws {
        for day in ["day1", "day2"] { try FileManager.default.createDirectory(atPath: feed + "/" + day, withIntermediateDirectories: true) }
        TestPaths.write(
            [purchase("2026-09-30T10:00:00Z", "u1", t1), purchase("2026-10-01T11:00:00Z", "u2", t2)].joined(separator: "\n") + "\n",
            to: feed + "/day1/client.jsonl")
        TestPaths.write(request("r2", "2026-10-01T11:00:05Z", "u2", t2) + "\n", to: feed + "/day1/server.jsonl")
        TestPaths.write(answer("r2", "2026-10-01T11:00:06Z", t2) + "\n", to: feed + "/day1/verify.jsonl")
        TestPaths.write(purchase("2026-09-30T08:00:00Z", "u3", t3) + "\n", to: feed + "/day2/client.jsonl")
        TestPaths.write(request("r1", "2026-10-02T09:00:00Z", "u1", t1) + "\n", to: feed + "/day2/server.jsonl")
        TestPaths.write(answer("r1", "2026-10-02T09:00:01Z", t1) + "\n", to: feed + "/day2/verify.jsonl")
    }

    static let readLedger = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        def rows(sql): return [["NULL" if v is None else v for v in r] for r in db.execute(sql)]
        print(json.dumps({
            "runs": rows("SELECT run, files, findings, new, still_open, resolved, reopened, as_of FROM audit_run ORDER BY run"),
            "states": rows("SELECT finding_id, kind, transaction_id, reason, status, first_seen_run, last_seen_run, resolved_run, "
                           "resolved_at, resolved_evidence, note FROM finding_state ORDER BY finding_id"),
            "history": rows("SELECT run, finding_id, event, detail FROM finding_history ORDER BY rowid"),
            "findings": rows("SELECT finding_id, kind, transaction_id FROM finding ORDER BY rowid"),
            "dump": [l for l in db.iterdump() if l.startswith(('INSERT INTO "audit_run"', 'INSERT INTO "finding_history"',
                                                                'INSERT INTO "finding_state"', 'INSERT INTO "run_input"'))]}))
        """

    /// JSON text with sorted keys, for comparing what JSONSerialization read.
    static func canonical(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    func ledger(_ out: String) throws -> [String: Any] {
        try PythonReader.run(Self.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
    }

    func testACreditArrivingTheNextDayResolvesItsDroppedOrder() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try Self.writeDays(feed)
        let day2 = try FileManager.default.contentsOfDirectory(atPath: feed + "/day2")
        try FileManager.default.moveItem(atPath: feed + "/day2", toPath: root + "/later")

        let first = CLIRun(["run", feed, "--out", out])
        XCTAssertEqual(first.status, 0, first.err)
        var db = try ledger(out)
        XCTAssertEqual(db["runs"] as? [[AnyHashable]], [[1, 3, 1, 1, 0, 0, 0, "2026-10-01T11:00:06.000Z"]])
        XCTAssertEqual(db["history"] as? [[AnyHashable]], [[1, "dropped_order:\(Self.t1)", "new", "never_sent"]])
        XCTAssertTrue(
            first.out.contains("Changes: run 1, the ledger's first run (every finding is new):\n  1 new, 0 still open"), first.out)

        // The next night brings day 2.
        try FileManager.default.moveItem(atPath: root + "/later", toPath: feed + "/day2")
        XCTAssertEqual(day2.count, 3)
        let second = CLIRun(["run", feed, "--out", out, "--json"])
        XCTAssertEqual(second.status, 0, second.err)
        db = try ledger(out)
        XCTAssertEqual((db["runs"] as? [[AnyHashable]])?.last, [2, 6, 1, 1, 0, 1, 0, "2026-10-02T09:00:01.000Z"])
        let evidence = "[\"\(feed)/day2/server.jsonl:1\",\"\(feed)/day2/verify.jsonl:1\"]"
        XCTAssertEqual(
            db["states"] as? [[AnyHashable]],
            [
                [
                    "dropped_order:\(Self.t1)", "dropped_order", Self.t1, "never_sent", "resolved", 1, 1, 2, "2026-10-02T09:00:00.000Z",
                    evidence, "NULL",
                ],
                ["dropped_order:\(Self.t3)", "dropped_order", Self.t3, "never_sent", "open", 2, 2, "NULL", "NULL", "[]", "NULL"],
            ])
        XCTAssertEqual(
            (db["history"] as? [[AnyHashable]])?.dropFirst(),
            [
                [2, "dropped_order:\(Self.t3)", "new", "never_sent"],
                [
                    2, "dropped_order:\(Self.t1)", "resolved",
                    "resolved by 2 new record(s): \(feed)/day2/server.jsonl:1, \(feed)/day2/verify.jsonl:1",
                ],
            ])
        XCTAssertEqual(db["findings"] as? [[AnyHashable]], [["dropped_order:\(Self.t3)", "dropped_order", Self.t3]])
        let json = try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as! [String: Any]
        let changes = json["changes"] as! [String: Any]
        XCTAssertEqual(changes["run"] as? Int, 2)
        XCTAssertEqual(changes["previous_run"] as? Int, 1)
        XCTAssertEqual(changes["repeated"] as? Bool, false)
        XCTAssertEqual(changes["new"] as? [String], ["dropped_order:\(Self.t3)"])
        XCTAssertEqual(changes["still_open"] as? [String], [])
        XCTAssertEqual(changes["reopened"] as? [String], [])
        XCTAssertEqual(
            Self.canonical(changes["resolved"]),
            #"[{"evidence":["\#(feed)/day2/server.jsonl:1","\#(feed)/day2/verify.jsonl:1"],"finding_id":"dropped_order:\#(Self.t1)","resolved_at":"2026-10-02T09:00:00.000Z"}]"#
        )
        XCTAssertEqual(
            changes["counts"] as? [String: Int], ["new": 1, "still_open": 0, "resolved": 1, "reopened": 0, "expired": 0, "acknowledged": 0])
        XCTAssertEqual(Self.canonical(json["alert"]), #"{"exit":0,"reasons":[]}"#)

        // A re-run on the same inputs: no run, no history row; it says run 2's changes again.
        let before = db["dump"] as? [String]
        let again = CLIRun(["run", feed, "--out", out, "--json"])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertEqual(try ledger(out)["dump"] as? [String], before)
        let repeated = (try JSONSerialization.jsonObject(with: Data(again.out.utf8)) as! [String: Any])["changes"] as! [String: Any]
        XCTAssertEqual(repeated["run"] as? Int, 2)
        XCTAssertEqual(repeated["repeated"] as? Bool, true)
        XCTAssertEqual(repeated["new"] as? [String], ["dropped_order:\(Self.t3)"])

        // Day 2's server log rotated away: the ledger keeps the credit's record, nothing changes (a re-run).
        try FileManager.default.removeItem(atPath: feed + "/day2/server.jsonl")
        let rotated = CLIRun(["run", feed, "--out", out])
        XCTAssertEqual(rotated.status, 0, rotated.err)
        XCTAssertEqual(try ledger(out)["dump"] as? [String], before)
        XCTAssertTrue(rotated.err.contains("day2/server.jsonl: not given this run: its 1 record was KEPT in the ledger"), rotated.err)

        // Dropped on purpose (--forget-missing): the credit's record is gone, the dropped order is back.
        let third = CLIRun(["run", feed, "--out", out, "--forget-missing"])
        XCTAssertEqual(third.status, 0, third.err)
        db = try ledger(out)
        XCTAssertEqual((db["runs"] as? [[AnyHashable]])?.last, [3, 5, 2, 0, 1, 0, 1, "2026-10-02T09:00:01.000Z"])
        // History keeps the reopened one; t3, still open for the same reason, changes only its last_seen_run.
        XCTAssertEqual(
            (db["history"] as? [[AnyHashable]])?.filter { $0[0] == AnyHashable(3) },
            [[3, "dropped_order:\(Self.t1)", "reopened", "never_sent (resolved in run 2)"]])
        XCTAssertTrue(third.out.contains("Changes: run 3, against run 2:\n  0 new, 1 still open, 0 resolved, 1 reopened\n"), third.out)
    }
}
