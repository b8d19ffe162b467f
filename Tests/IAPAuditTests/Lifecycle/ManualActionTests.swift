import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// docs/semantics.md rule 25, people's actions: `iap-audit resolve` records what a person did, and the next run reads it
/// as evidence. On copies of the sample's logs, through the built binary, read back with Python's sqlite3.
final class ManualActionTests: XCTestCase {
    /// A finding's state, reason and action as the ledger holds them: `[status, reason, code, user_id, quantity,
    /// request_ids]`, nil when the ledger has no such finding.
    private func finding(_ id: String, in out: String) throws -> [Any]? {
        let row = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            r = db.execute("SELECT s.status, s.reason, a.code, a.user_id, a.quantity, a.request_ids FROM finding_state s "
                           "LEFT JOIN finding_action a USING (finding_id) WHERE s.finding_id = ?", (sys.argv[2],)).fetchone()
            print(json.dumps(list(r) if r else None))
            """, args: [out + "/audit.sqlite", id])
        return row as? [Any]
    }

    /// The last `resolved` history row of a finding.
    private func resolvedDetail(_ id: String, in out: String) throws -> String? {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            r = db.execute("SELECT detail FROM finding_history WHERE finding_id = ? AND event = 'resolved' ORDER BY run DESC",
                           (sys.argv[2],)).fetchone()
            print(json.dumps(r[0] if r else None))
            """, args: [out + "/audit.sqlite", id]) as? String
    }

    private func run(_ input: String, _ out: String) throws {
        let r = try BuiltBinary.run(["run", input, "--out", out])
        XCTAssertEqual(r.status, 0, r.err)
    }

    private func resolve(_ arguments: [String], _ out: String, status: Int32 = 0) throws -> (status: Int32, out: String, err: String) {
        let r = try BuiltBinary.run(["resolve"] + arguments + ["--out", out])
        XCTAssertEqual(r.status, status, r.out + r.err)
        return r
    }

    /// A lost order credited by hand is resolved, naming the action; the app's own retry crediting it the next day is a
    /// double credit (`duplicate_credit/manual_and_automatic`) to take back, and taking it back by hand closes that.
    func testAManualCreditThenTheServersRetryIsADoubleCredit() throws {
        let (input, out) = try scratchSample()
        try run(input, out)
        let lost = "dropped_order:2000000400594083"
        XCTAssertEqual(try finding(lost, in: out)?[2] as? String, "ask_apple")
        let recorded = try resolve(
            ["2000000400594083", "--credited", "--quantity", "1", "--by", "ana", "--note", "ticket 881", "--at", "2026-10-31T09:00:00Z"],
            out)
        XCTAssertTrue(
            recorded.out.hasSuffix(
                ": manual action #1: credited by hand (quantity 1, to u251) by ana on 2026-10-31T09:00:00.000Z: \"ticket 881\"\n"
                    + "  warning: Apple does not confirm this payment (its finding called for ask_apple): a credit by hand may pay for a "
                    + "purchase never made; iap-audit ask-apple settles it\n"
                    + "  open: dropped_order:2000000400594083; the next run judges it with this action (docs/semantics.md rule 25): "
                    + "a dropped order is resolved, and a credit by the server of the same purchase is a duplicate_credit "
                    + "(manual_and_automatic)\n"), recorded.out)
        // Before the next run, trace already says it: a second agent must not credit it again.
        let traced = try BuiltBinary.run(["trace", "2000000400594083", "--out", out])
        XCTAssertTrue(
            traced.out.contains(
                "by hand (iap-audit resolve):\n  manual action #1: credited by hand (quantity 1, to u251) by ana on "
                    + "2026-10-31T09:00:00.000Z: \"ticket 881\"\n"), traced.out)
        XCTAssertTrue(traced.out.contains("credited: u251 by hand (manual action #1)\n"), traced.out)
        XCTAssertTrue(
            traced.out.contains(
                "next action: no action: manual action #1: credited by hand (quantity 1, to u251) by ana on 2026-10-31T09:00:00.000Z: "
                    + "\"ticket 881\" (the next run resolves dropped_order:2000000400594083); it called for: re-query Apple"),
            traced.out)
        // The search by what the customer knows says it too (found by a support user test: "not credited" beside it).
        let search = try BuiltBinary.run(["trace", "--user", "u251", "--out", out])
        XCTAssertTrue(search.out.contains("; credited by hand by ana (manual action #1); dropped_order/never_sent"), search.out)
        let json = try BuiltBinary.run(["trace", "2000000400594083", "--out", out, "--format", "json"])
        TestPaths.write(json.out, to: out + "/trace.json")
        let verdict =
            try PythonReader.run(
                """
                import json, sys
                t = json.load(open(sys.argv[1]))["transactions"][0]
                a = t["verdict"]["action"]
                print(json.dumps([a["code"], a["open_code"], a["by"], [m["action"] for m in t["manual_actions"]]]))
                """, args: [out + "/trace.json"]) as? [Any]
        XCTAssertEqual(verdict?.count, 4)
        XCTAssertEqual(verdict?[0] as? String, "none")
        XCTAssertEqual(verdict?[1] as? String, "ask_apple")
        XCTAssertEqual(verdict?[2] as? String, "ana")
        XCTAssertEqual(verdict?[3] as? [String], ["credited"])
        // The workbook's Timeline has the same row, read back with openpyxl.
        XCTAssertEqual(try BuiltBinary.run(["trace", "2000000400594083", "--out", out, "--format", "xlsx"]).status, 0)
        let sheetRow =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1])["Timeline"]
                rows = [[str(c) for c in r] for r in ws.iter_rows(min_row=2, values_only=True) if r[2] == "manual_action"]
                print(json.dumps(rows))
                """, args: [out + "/trace-2000000400594083.xlsx"]) as? [[String]]
        XCTAssertEqual(
            sheetRow,
            [
                [
                    "2000000400594083", "2026-10-31 09:00:00", "manual_action", "manual action #1",
                    "credited by hand (quantity 1, to u251) by ana on 2026-10-31T09:00:00.000Z: \"ticket 881\"", "1",
                ]
            ])
        try run(input, out)
        XCTAssertEqual(try finding(lost, in: out)?[0] as? String, "resolved")
        XCTAssertEqual(
            try resolvedDetail(lost, in: out),
            "resolved by manual action #1: credited by hand (quantity 1, to u251) by ana on 2026-10-31T09:00:00.000Z: \"ticket 881\"")
        // The app retries the next day and the server credits it again.
        let retry =
            #"{"ts":"2026-11-01T08:00:00Z","request_id":"rretry1","user_id":"u251","transaction_ids":["2000000400594083"],"restore":false,"verify_status":0,"environment":"Production","granted":true,"credited_transaction_ids":["2000000400594083"]}"#
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: input + "/server.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data((retry + "\n").utf8))
        handle.closeFile()
        try run(input, out)
        let double = try XCTUnwrap(try finding("duplicate_credit:2000000400594083", in: out))
        XCTAssertEqual(double[0] as? String, "open")
        XCTAssertEqual(double[1] as? String, "manual_and_automatic")
        XCTAssertEqual(double[2] as? String, "revoke")
        XCTAssertEqual(double[3] as? String, "u251")
        XCTAssertEqual(double[4] as? Int, 1)
        XCTAssertEqual(double[5] as? String, #"["rretry1"]"#)
        _ = try resolve(["2000000400594083", "--revoked", "--by", "ana", "--note", "took the retry's 60 gems back"], out)
        try run(input, out)
        XCTAssertEqual(try finding("duplicate_credit:2000000400594083", in: out)?[0] as? String, "resolved")
    }

    /// `ack` says a finding is known and changes nothing a run finds; `resolve --refused` closes a claim Apple does not
    /// confirm, and not one Apple confirms.
    func testAckIsNoActionAndARefusalClosesOnlyAnUnconfirmedClaim() throws {
        let (input, out) = try scratchSample()
        try run(input, out)
        let ack = try BuiltBinary.run(["ack", "dropped_order:2000000400594084", "--note", "known", "--by", "bo", "--out", out])
        XCTAssertEqual(ack.status, 0, ack.err)
        let refused = try resolve(
            ["2000000400594085", "--refused", "--by", "bo", "--note", "ticket 12: no such purchase on the invoice", "--json"], out)
        TestPaths.write(refused.out, to: out + "/resolve.json")
        let recorded =
            try PythonReader.run(
                """
                import json, sys
                o = json.load(open(sys.argv[1]))
                print(json.dumps([o["action_id"], o["transaction_id"], o["action"], o["quantity"], o["user_id"], o["by"], o["note"],
                                  o["open_findings"], o["earlier_action_ids"]]))
                """, args: [out + "/resolve.json"]) as? [Any]
        XCTAssertEqual(recorded?[0] as? Int, 1)
        XCTAssertEqual(recorded?[1] as? String, "2000000400594085")
        XCTAssertEqual(recorded?[2] as? String, "refused")
        XCTAssertTrue(recorded?[3] is NSNull)
        XCTAssertEqual(recorded?[4] as? String, "u253")
        XCTAssertEqual(recorded?[5] as? String, "bo")
        XCTAssertEqual(recorded?[6] as? String, "ticket 12: no such purchase on the invoice")
        XCTAssertEqual(recorded?[7] as? [String], ["dropped_order:2000000400594085"])
        XCTAssertEqual(recorded?[8] as? [Int], [])
        // Apple confirms this one's payment (its action is credit): refusing it closes nothing.
        XCTAssertEqual(try finding("dropped_order:2000000400594180", in: out)?[2] as? String, "credit")
        _ = try resolve(["2000000400594180", "--refused", "--by", "bo", "--note", "ticket 13"], out)
        try run(input, out)
        XCTAssertEqual(try finding("dropped_order:2000000400594084", in: out)?[0] as? String, "acknowledged")
        XCTAssertEqual(try finding("dropped_order:2000000400594085", in: out)?[0] as? String, "resolved")
        let confirmed = try finding("dropped_order:2000000400594180", in: out)
        XCTAssertEqual(confirmed?[0] as? String, "open")
        XCTAssertEqual(confirmed?[2] as? String, "credit")
    }

    /// What a typo or a spreadsheet-mangled id would record on another purchase is refused, and nothing is recorded.
    func testAnUnknownIdOrAnotherAccountIsRefused() throws {
        let (input, out) = try scratchSample()
        try run(input, out)
        let unknown = try resolve(["2000000400594080", "--credited", "--by", "bo", "--note", "x"], out, status: 1)
        XCTAssertTrue(unknown.err.contains("no record or finding of this ledger names transaction 2000000400594080"), unknown.err)
        let other = try resolve(["2000000400594083", "--credited", "--user", "u9", "--by", "bo", "--note", "x"], out, status: 1)
        XCTAssertTrue(other.err.contains("the ledger ties transaction 2000000400594083 to u251, not to u9"), other.err)
        let usage = try resolve(["2000000400594083", "--credited", "--refused", "--by", "bo", "--note", "x"], out, status: 64)
        XCTAssertTrue(usage.err.contains("one of --credited, --refused, --revoked, --refunded"), usage.err)
        let count = try PythonReader.run(
            "import json, sqlite3, sys; print(json.dumps(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM manual_action').fetchone()[0]))",
            args: [out + "/audit.sqlite"])
        XCTAssertEqual(count as? Int, 0)
    }
}
