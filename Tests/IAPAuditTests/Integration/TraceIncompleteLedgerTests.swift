import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReconcile

/// A ledger whose last run was killed may lack records and findings: `trace` judges nothing from it. Before, a paid
/// order the run had not yet reconciled showed `next action: no action` (found by a support user test).
final class TraceIncompleteLedgerTests: XCTestCase {
    func testATraceOfAnIncompleteLedgerJudgesNothing() throws {
        let out = TestPaths.scratch()
        try TraceLostOrderTests.run(into: out)
        _ = try PythonReader.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE run_parameter SET value = 'incomplete' WHERE name = 'run_status'")
            db.commit()
            print("[]")
            """, args: [out + "/audit.sqlite"])
        let run = TraceLostOrderTests.trace(["MK5TTTVWJH", "--out", out], out: out)
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines[1],
            "ledger OUT/audit.sqlite, as of 2026-10-15T00:00:00.000Z (the last run is incomplete: the ledger may lack its findings)")
        XCTAssertEqual(lines[2], "actions: not judged 2 (2000000400000101, 2000000400000102)")
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("next action:") },
            Array(repeating: "next action: " + TraceJudge.incompleteAction("incomplete"), count: 2))
        let json = TraceLostOrderTests.trace(["MK5TTTVWJH", "--out", out, "--format", "json"], out: out)
        let object = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as! [String: Any]
        let codes = (object["transactions"] as! [[String: Any]]).map {
            (($0["verdict"] as! [String: Any])["next_action"] as! [String: Any])["code"] as! String
        }
        XCTAssertEqual(codes, ["not_judged", "not_judged"])
        XCTAssertEqual(object["run_status"] as? String, "incomplete")
    }

    /// A run killed mid-write leaves a hot journal; a trace (which holds the folder's lock: no run is writing) rolls it back
    /// as the next run would, and reads the ledger as that run found it (helper-37: every trace failed with "attempt to
    /// write a readonly database" until the next run).
    func testATraceRollsBackAKilledWritersJournal() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        try TraceLostOrderTests.run(into: out)
        let before = TraceLostOrderTests.trace(["MK5TTTVWJH", "--out", out], out: out)
        XCTAssertEqual(before.status, 0, before.err)
        // A writer that dies inside its transaction after changed pages reached the file (a small cache spills them).
        _ = try PythonReader.run(
            """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA cache_size = 1")
            db.execute("BEGIN")
            db.execute("DELETE FROM client_report")
            db.execute("DELETE FROM finding")
            print("[]", flush=True)
            os._exit(0)
            """, args: [out + "/audit.sqlite"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.sqlite-journal"), "no hot journal was left")
        let after = TraceLostOrderTests.trace(["MK5TTTVWJH", "--out", out], out: out)
        XCTAssertEqual(after.status, 0, after.err)
        XCTAssertEqual(after.out, before.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.sqlite-journal"))
    }
}
