import Foundation
import XCTest

/// Next actions that a support engineer would have followed into a wrong payout, found by a support user test
/// (`Fixtures/trace/support-cases`, its inputs): each asserted on the built binary's JSON.
final class TraceSupportCaseTests: XCTestCase {
    static let folder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/trace/support-cases"

    /// The ledger of the support cases (made once per test).
    func ledger() -> String {
        let out = TestPaths.scratch()
        let run = CLIRun(["run", "--out", out, Self.folder])
        XCTAssertEqual(run.status, 0, run.err)
        return out
    }

    /// The JSON of one transaction's trace.
    func traced(_ id: String, _ out: String) throws -> [String: Any] {
        let trace = CLIRun(["trace", id, "--out", out, "--format", "json"])
        XCTAssertEqual(trace.status, 0, trace.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(trace.out.utf8)) as? [String: Any])
        return try XCTUnwrap((json["transactions"] as? [[String: Any]])?.first { $0["transaction_id"] as? String == id })
    }

    func action(_ t: [String: Any]) -> (code: String?, text: String?) {
        let next = (t["verdict"] as? [String: Any])?["next_action"] as? [String: Any]
        return (next?["code"] as? String, next?["text"] as? String)
    }

    func testNextActionsThatWouldHavePaidTwiceOrTheWrongAccount() throws {
        let out = ledger()
        // Listed by the receipts of two accounts' requests, credited to neither: one payment, credited once.
        let both = action(try traced("7000000000000002", out))
        XCTAssertEqual(both.code, "credit_manually")
        XCTAssertEqual(
            both.text,
            "credit manually to one of u-p, u-q (once: one payment, listed by the receipts of several accounts; the account of "
                + "the ticket's customer): Apple confirms payment (\(Self.folder)/verify.jsonl:4), no credit found")
        // Paid 3, credited 1 then 2: rule 20 compares the largest credit; the action says to check before crediting more.
        // Reported by u-A, credited to u-B and u-C: keeping the first credit would leave the payer with nothing.
        for (id, code, ending) in [
            (
                "7000000000000001", "credit_rest",
                "; it was credited by 2 requests (the duplicate_credit finding): if their quantities add up to what was paid, "
                    + "nothing is missing, so check them before crediting more"
            ),
            (
                "7000000000000003", "revoke",
                "; but the client report's user u-A was credited none of them: the payment may be theirs, so check the ticket's "
                    + "account before revoking, and credit u-A instead if it is theirs"
            ),
        ] {
            let next = action(try traced(id, out))
            XCTAssertEqual(next.code, code, id)
            XCTAssertTrue(next.text?.hasSuffix(ending) ?? false, next.text ?? id)
        }
    }

    func testARequestLoggedTwiceIsOneCredit() throws {
        let t = try traced("7000000000000098", ledger())
        let credits = try XCTUnwrap((t["verdict"] as? [String: Any])?["credits"] as? [[String: Any]])
        XCTAssertEqual(credits.map { $0["request_id"] as? String }, ["rBG2"])
        // The timeline still shows both lines.
        XCTAssertEqual(
            (t["timeline"] as? [[String: Any]])?.filter { ($0["location"] as? String)?.contains("server.jsonl") ?? false }.count, 2)
    }

    /// A server line rejected for `"granted": "yes"` names the transaction: the trace lists it and says to fix it first.
    func testARejectedLineNamingTheTransactionComesFirst() throws {
        let t = try traced("6000000000000002", ledger())
        XCTAssertEqual(
            (t["rejected_lines"] as? [[String: String]])?.map { "\($0["location"]!) \($0["reason"]!)" },
            ["\(Self.folder)/server.jsonl:13 field 'granted': expected a boolean, found \"yes\""])
        let next = action(t)
        XCTAssertEqual(next.code, "fix_input")
        XCTAssertEqual(
            next.text,
            "fix the rejected line naming it (\(Self.folder)/server.jsonl:13) and run again: the run could not read it, so the "
                + "findings and this verdict do not know what it holds; as the ledger stands: re-query Apple Get Transaction Info "
                + "for 6000000000000002: only the client reports the purchase; it never reached the server")
    }

    /// The workbook's Verdicts sheet says what was revoked, and its Findings sheet when each finding was first seen and its
    /// loss happened (found by the same test: a credit revoked since read as held there).
    func testTheWorkbookSaysWhatWasRevoked() throws {
        let out = ledger()
        let trace = CLIRun(["trace", "7000000000000004", "--out", out, "--format", "xlsx"])
        XCTAssertEqual(trace.status, 0, trace.err)
        let read = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sys, openpyxl
                wb = openpyxl.load_workbook(sys.argv[1])
                rows = lambda name: [[("" if c is None else str(c)) for c in r] for r in wb[name].iter_rows(values_only=True)]
                print(json.dumps({"verdicts": rows("Verdicts"), "findings": rows("Findings")}))
                """, args: [out + "/trace-7000000000000004.xlsx"]) as? [String: [[String]]])
        let verdicts = try XCTUnwrap(read["verdicts"])
        let column = try XCTUnwrap(verdicts[0].firstIndex(of: "revoked"))
        XCTAssertEqual(verdicts[0][column - 1], "credited to")
        XCTAssertEqual(verdicts[1][column - 1], "u-rg")
        XCTAssertEqual(verdicts[1][column], "u-rg by vG1 (2026-10-17T09:00:07.000Z)")
        let findings = try XCTUnwrap(read["findings"])
        XCTAssertEqual(
            Array(findings[0].prefix(7)),
            [
                "transaction_id", "kind", "reason", "severity", "apple_confirmation", "first_seen (UTC)", "loss at (UTC)",
            ])
        // Refunded on the 16th, revoked on the 17th, granted again on the 20th: the loss is the new holding's.
        XCTAssertEqual(
            Array(findings[1][1...2] + findings[1][5...6]),
            ["refund_still_granted", "cancelled_not_revoked", "2026-10-15 09:00:05", "2026-10-20 09:00:07"])
    }

    /// A refund Apple took back (REFUND_REVERSED) is said in the verdict, not only in the timeline (found by the same test).
    func testAReversedRefundIsSaid() throws {
        let folder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/refund-reversed-in-notification-history"
        let out = TestPaths.scratch()
        let run = CLIRun(["run", "--out", out, "--as-of", "2026-10-10T00:00:00Z", folder])
        XCTAssertEqual(run.status, 0, run.err)
        let verdict = try XCTUnwrap(try traced("2000000400000001", out)["verdict"] as? [String: Any])
        XCTAssertTrue(verdict["refund"] is NSNull)
        let reversed = try XCTUnwrap(verdict["refund_reversed"] as? [String: String])
        XCTAssertEqual(reversed, ["refunded_at": "2026-10-03T09:50:00.000Z", "location": folder + "/notification-history.json:1"])
        let text = CLIRun(["trace", "2000000400000001", "--out", out])
        XCTAssertTrue(
            text.out.contains(
                "\nrefund reversed: Apple took back its refund of 2026-10-03T09:50:00.000Z (REFUND_REVERSED, \(folder)/notification-history.json:1)\n"
            ),
            text.out)
    }
}
