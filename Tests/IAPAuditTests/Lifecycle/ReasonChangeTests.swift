import Foundation
import XCTest

/// A finding still open from one night to the next with another reason: never sent on day 1, sent on day 2
/// and refused by Apple (21010, not retryable). History keeps a still_open row saying from what; the Changes
/// sheet lists it; the findings still open for the same reason get no row (their last_seen_run moves).
final class ReasonChangeTests: XCTestCase {
    static let t1 = "2000000000000001"

    static let read = """
        import json, openpyxl, sqlite3, sys
        db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
        sheet = list(openpyxl.load_workbook(sys.argv[1] + "/audit.xlsx", read_only=True)["Changes"].iter_rows(values_only=True))
        print(json.dumps({
            "history": db.execute("SELECT run, finding_id, event, detail FROM finding_history ORDER BY rowid").fetchall(),
            "states": db.execute("SELECT finding_id, reason, status, first_seen_run, last_seen_run FROM finding_state").fetchall(),
            "runs": db.execute("SELECT run, new, still_open, resolved, reopened FROM audit_run ORDER BY run").fetchall(),
            "sheet": [["" if v is None else v for v in r] for r in sheet]}))
        """

    func testAFindingWhoseReasonChangesIsKeptInHistoryAndListed() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        for day in ["day1", "day2"] { try FileManager.default.createDirectory(atPath: feed + "/" + day, withIntermediateDirectories: true) }
        TestPaths.write(
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u1","transaction_id":"\#(Self.t1)","product_id":"com.example.gems60","state":"purchased"}"#
                + "\n", to: feed + "/day1/client.jsonl")
        TestPaths.write(
            #"{"ts":"2026-10-02T09:00:00Z","request_id":"r1","user_id":"u1","transaction_ids":["\#(Self.t1)"],"granted":false,"verify_status":21010,"environment":"Production"}"#
                + "\n", to: feed + "/day2/server.jsonl")
        TestPaths.write(
            #"{"request_id":"r1","received_at":"2026-10-02T09:00:04Z","response":{"status":21010}}"# + "\n", to: feed + "/day2/verify.jsonl"
        )
        try FileManager.default.moveItem(atPath: feed + "/day2", toPath: root + "/later")
        XCTAssertEqual(CLIRun(["run", feed, "--out", out]).status, 0)
        try FileManager.default.moveItem(atPath: root + "/later", toPath: feed + "/day2")
        let second = CLIRun(["run", feed, "--out", out])
        XCTAssertEqual(second.status, 0, second.err)
        let id = "dropped_order:\(Self.t1)"
        XCTAssertTrue(
            second.out.contains(
                "Changes: run 2, against run 1:\n  0 new, 1 still open, 0 resolved, 0 reopened\n  still open "
                    + "\(id)  verify_failed (was never_sent)\n  open now: 1 problem finding(s) not acknowledged, 0 acknowledged, 0 info\n"),
            second.out)

        // The summary lists the files this night brought; the one of night 1 is counted, not listed.
        XCTAssertTrue(
            second.out.contains(
                "Inputs (3 files; 2 new or changed since run 1, listed; the other 1 as an earlier run read them: the workbook's Summary "
                    + "and --json list every file):\n  \(feed)/day2/server.jsonl  server_log: 1 in = 1 imported + 0 rejected\n  "
                    + "\(feed)/day2/verify.jsonl  verify_response: 1 in = 1 imported + 0 rejected\nRecords: 3 in = 3 imported + 0 rejected\n"
            ),
            second.out)
        let db = try PythonReader.run(Self.read, args: [out]) as! [String: Any]
        XCTAssertEqual(
            db["history"] as? [[AnyHashable]],
            [[1, id, "new", "never_sent"], [2, id, "still_open", "verify_failed (was never_sent)"]])
        XCTAssertEqual(db["states"] as? [[AnyHashable]], [[id, "verify_failed", "open", 1, 2]])
        XCTAssertEqual(db["runs"] as? [[Int]], [[1, 1, 0, 0, 0], [2, 0, 1, 0, 0]])
        XCTAssertEqual(
            (db["sheet"] as? [[AnyHashable]])?.dropFirst(2).map { $0 },
            [["still_open", id, "open", "dropped_order", "verify_failed", Self.t1, 1, 2, "", "", "", "verify_failed (was never_sent)"]])
        XCTAssertEqual(
            (db["sheet"] as? [[AnyHashable]])?.first?.first, "Run 2, against run 1: 0 new, 1 still_open, 0 resolved, 0 reopened")

        // A third night with nothing new for it: still open for the same reason, no history row; its last_seen_run moves.
        TestPaths.write(
            #"{"ts":"2026-10-03T08:00:00Z","user_id":"u2","transaction_id":"2000000000000002","product_id":"com.example.gems60","state":"purchasing"}"#
                + "\n", to: feed + "/day3.jsonl")
        let third = CLIRun(["run", feed, "--out", out])
        XCTAssertEqual(third.status, 0, third.err)
        XCTAssertTrue(
            third.out.contains(
                "Inputs (4 files; 1 new or changed since run 2, listed; the other 3 as an earlier run read them: the workbook's Summary "
                    + "and --json list every file):\n  \(feed)/day3.jsonl  client_report: 1 in = 1 imported + 0 rejected\n"), third.out)
        let after = try PythonReader.run(Self.read, args: [out]) as! [String: Any]
        XCTAssertEqual((after["history"] as? [[AnyHashable]])?.count, 2)
        XCTAssertEqual(after["states"] as? [[AnyHashable]], [[id, "verify_failed", "open", 1, 3]])
        XCTAssertEqual((after["runs"] as? [[Int]])?.last, [3, 0, 1, 0, 0])
        XCTAssertEqual(
            (after["sheet"] as? [[AnyHashable]])?.first?.first,
            "Run 3, against run 2: 0 new, 1 still_open, 0 resolved, 0 reopened (not listed here: 1 still open as before; "
                + "the finding sheets list them, status open or acknowledged)")
        XCTAssertEqual((after["sheet"] as? [[AnyHashable]])?.count, 2, "the title and the header: no row")
    }
}
