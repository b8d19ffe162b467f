import Foundation
import XCTest

/// A close values the period's findings (its window is the period: SEMANTICS rule 17) but leaves the ledger's own
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
        XCTAssertEqual(before.count, 164)
        XCTAssertTrue(before.contains { $0.hasPrefix("dropped_order|in_receipt_never_credited|\(afterPeriod)|") }, "\(before)")
        let close = CLIRun(["close", "--period", "2026-10", "--prices", sampleData + "/prices.csv", "--out", out, sampleData])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertEqual(try findings(out), before, "the close changed the ledger's findings")
        // The workbook a run wrote, written again by the close's run on the same inputs: the same findings, and the
        // run's changes again (nothing recorded).
        let sheet = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sys, openpyxl
                wb = openpyxl.load_workbook(sys.argv[1])
                rows = list(wb["dropped_order"].iter_rows(values_only=True))
                column = rows[0].index("transaction_id")
                ids = [r[column] for r in rows[1:]]
                print(json.dumps({"dropped": ids, "changes": wb["Changes"]["A1"].value}))
                """, args: [out + "/audit.xlsx"]) as? [String: Any])
        XCTAssertTrue((sheet["dropped"] as? [String])?.contains(afterPeriod) == true, "\(sheet)")
        XCTAssertEqual(
            sheet["changes"] as? String,
            "Run 1 (run again on the same inputs and parameters: nothing recorded), the ledger's first run: every finding is new: "
                + "164 new, 0 still_open, 0 resolved, 0 reopened (not listed here: the finding sheets list every finding with its "
                + "finding_id and status)")
        let trace = CLIRun(["trace", afterPeriod, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertTrue(trace.out.contains("  dropped_order/in_receipt_never_credited "), trace.out)
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

    /// A close given more than the last run had (Apple's notifications, held back from the run) brings the ledger's
    /// findings up to date as a run would — the purchase only a notification lists becomes a dropped order — without
    /// recording a run: no Changes sheet (the next run's changes count from the last recorded run), one `audit_run`.
    func testCloseOnNewInputsRefreshesTheFindingsWithoutRecordingARun() throws {
        let (out, input, full) = (TestPaths.scratch(), TestPaths.scratch("input"), TestPaths.scratch("full"))
        try FileManager.default.copyItem(atPath: sampleData, toPath: input)
        let held = TestPaths.scratch("held") + ".jsonl"
        try FileManager.default.moveItem(atPath: input + "/notifications.jsonl", toPath: held)
        XCTAssertEqual(CLIRun(["run", "--out", out, input]).status, 0)
        XCTAssertFalse(try findings(out).contains { $0.contains("|\(afterPeriod)|") })
        try FileManager.default.moveItem(atPath: held, toPath: input + "/notifications.jsonl")
        let close = CLIRun(["close", "--period", "2026-10", "--out", out, input])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertEqual(CLIRun(["run", "--out", full, input]).status, 0)
        let refreshed = try findings(out)
        XCTAssertEqual(refreshed, try findings(full), "the findings a run of the same inputs has")
        XCTAssertTrue(refreshed.contains { $0.hasPrefix("dropped_order|in_receipt_never_credited|\(afterPeriod)|") })
        let recorded = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys, openpyxl
                runs = sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM audit_run").fetchone()[0]
                print(json.dumps({"runs": runs, "sheets": openpyxl.load_workbook(sys.argv[2]).sheetnames}))
                """, args: [out + "/audit.sqlite", out + "/audit.xlsx"]) as? [String: Any])
        XCTAssertEqual(recorded["runs"] as? Int, 1, "a close records no run")
        XCTAssertEqual((recorded["sheets"] as? [String])?.contains("Changes"), false, "\(recorded)")
    }
}
