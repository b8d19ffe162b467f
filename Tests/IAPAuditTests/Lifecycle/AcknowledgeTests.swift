import Foundation
import XCTest

/// `iap-audit ack` on the built binary: the finding leaves `--fail-on`'s alerts and stays in the reports
/// (table finding, the finding sheets, the Changes sheet); unknown and resolved ids are clear errors.
final class AcknowledgeTests: XCTestCase {
    typealias Day = NextDayCreditTests

    static let readAck = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
        state = db.execute("SELECT status, note, acknowledged_at_ms, first_seen_run, last_seen_run FROM finding_state").fetchall()
        history = db.execute("SELECT run, finding_id, event, detail, time_ms FROM finding_history ORDER BY rowid").fetchall()
        findings = db.execute("SELECT finding_id FROM finding").fetchall()
        import openpyxl
        wb = openpyxl.load_workbook(sys.argv[1] + "/audit.xlsx")
        sheet = list(wb["dropped_order"].iter_rows(values_only=True))
        changes = list(wb["Changes"].iter_rows(values_only=True))
        print(json.dumps({"state": state, "history": history, "findings": findings,
                          "sheet": [[c, str(v)] for c, v in zip(sheet[0], sheet[1]) if c in ("finding_id", "status", "first_seen_run", "acknowledged_note")], "changes": [["" if v is None else v for v in r] for r in changes[:3]]}, default=str))
        """

    func testAnAcknowledgedFindingStaysInTheReportsAndLeavesTheAlerts() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try Day.writeDays(feed)
        try FileManager.default.moveItem(atPath: feed + "/day2", toPath: root + "/later")
        let id = "dropped_order:\(Day.t1)"

        let first = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", "dropped_order"])
        XCTAssertEqual(first.status, 3, first.err)
        XCTAssertTrue(first.err.hasSuffix("iap-audit: alert: 1 open dropped_order finding(s): \(id)\n"), first.err)

        let before = Int64(Date().timeIntervalSince1970 * 1000)
        // --out with a trailing slash, as a shell's completion writes it: the ledger's path said once, without "//".
        let ack = try BuiltBinary.run(["ack", id, "--note", "credited by hand, ticket 4711", "--out", out + "/"])
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertEqual(ack.status, 0, ack.err)
        XCTAssertEqual(
            ack.out,
            "acknowledged \(id) (open since run 1) in \(out)/audit.sqlite: it stays in the reports and out of --fail-on alerts "
                + "until it is resolved\n")

        // Out of the alerts, whichever rule: the same inputs again (a re-run: run 1's verdict, acknowledged now).
        for rule in ["dropped_order", "any", "new"] {
            let run = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", rule])
            XCTAssertEqual(run.status, 0, "--fail-on \(rule): \(run.err)")
            XCTAssertFalse(run.err.contains("alert"), run.err)
            XCTAssertTrue(run.out.contains("  new        \(id)  never_sent (acknowledged)"), run.out)
            XCTAssertTrue(run.out.hasPrefix("Verdict: ok, exit 0: nothing alerts\n"), run.out)
        }

        // In the reports (the workbook is the last re-run's: run 1's changes, the finding acknowledged now).
        let db = try PythonReader.run(Self.readAck, args: [out]) as! [String: Any]
        let state = try XCTUnwrap((db["state"] as? [[Any]])?.first)
        XCTAssertEqual(state[0] as? String, "acknowledged")
        XCTAssertEqual(state[1] as? String, "credited by hand, ticket 4711")
        let at = try XCTUnwrap(state[2] as? Int64)
        XCTAssertTrue((before...after).contains(at), "acknowledged at the machine's time")
        XCTAssertEqual(state[3] as? Int, 1)
        let history = try XCTUnwrap(db["history"] as? [[Any]])
        XCTAssertEqual(
            history.map { "\($0[0]) \($0[1]) \($0[2]) \($0[3])" },
            ["1 \(id) new never_sent", "1 \(id) acknowledged credited by hand, ticket 4711"])
        XCTAssertEqual(history[1][4] as? Int64, at)
        XCTAssertEqual(db["findings"] as? [[String]], [[id]])
        XCTAssertEqual(
            db["sheet"] as? [[String]],
            [
                ["finding_id", id], ["status", "acknowledged"], ["first_seen_run", "1"],
                ["acknowledged_note", "credited by hand, ticket 4711"],
            ])
        XCTAssertEqual(
            (db["changes"] as? [[Any]])?.map { $0.map { "\($0)" } },
            [
                [
                    "Run 1 (run again on the same inputs and parameters: nothing recorded), the ledger's first run: every finding is "
                        + "new: 1 new, 0 still_open, 0 resolved, 0 reopened; 1 acknowledged (not listed here: the finding sheets list "
                        + "every finding with its finding_id and status)"
                ] + Array(repeating: "", count: 11),
                [
                    "event", "finding_id", "status", "kind", "reason", "transaction_id", "first_seen_run", "last_seen_run",
                    "resolved_at (UTC)", "resolved_by", "acknowledged_note", "detail",
                ],
            ])

        // An unknown id names the nearest ones; a resolved one cannot be acknowledged.
        let typo = try BuiltBinary.run(["ack", "dropped_order:200000000000001", "--note", "x", "--out", out])
        XCTAssertEqual(typo.status, 1)
        XCTAssertEqual(
            typo.err,
            "iap-audit: \(out)/audit.sqlite: error: no finding 'dropped_order:200000000000001' in this ledger; nearest: \(id) "
                + "(acknowledged); ids are kind:transaction_id\n")
        // A nonsense id is near nothing: no neighbour in byte order is offered (one was, whatever the id).
        let nonsense = try BuiltBinary.run(["ack", "zzz", "--note", "x", "--out", out])
        XCTAssertEqual(nonsense.status, 1)
        XCTAssertEqual(
            nonsense.err, "iap-audit: \(out)/audit.sqlite: error: no finding 'zzz' in this ledger; ids are kind:transaction_id\n")
        try FileManager.default.moveItem(atPath: root + "/later", toPath: feed + "/day2")
        let day2 = try BuiltBinary.run(["run", feed, "--out", out])
        XCTAssertEqual(day2.status, 0, day2.err)
        let resolved = try BuiltBinary.run(["ack", id, "--note", "x", "--out", out])
        XCTAssertEqual(resolved.status, 1)
        XCTAssertEqual(
            resolved.err,
            "iap-audit: \(out)/audit.sqlite: error: finding \(id) is resolved (run 2 at 2026-10-02T09:00:00.000Z): nothing to acknowledge\n"
        )
        let none = try BuiltBinary.run(["ack", id, "--note", "x", "--out", root + "/nowhere"])
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(
            none.err, "iap-audit: \(root)/nowhere/audit.sqlite: error: no ledger here: run `iap-audit run … --out \(root)/nowhere` first\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/nowhere"), "ack makes no folder")
    }
}
