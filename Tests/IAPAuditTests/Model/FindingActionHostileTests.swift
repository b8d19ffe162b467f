import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditStore

/// A finding's sentence and action made from facts no rule writes (a tampered ledger read by `trace --redact`, which makes
/// them again; a signed transaction's negative `revocationPercentage`): they are made, never trap.
final class FindingActionHostileTests: XCTestCase {
    private func finding(_ kind: FindingKind, _ reason: String, _ fill: (inout FindingFacts) -> Void) -> Finding {
        var facts = FindingFacts()
        fill(&facts)
        return Finding(kind: kind, reason: reason, transactionId: "T1", productId: "P", userIds: ["u1"], facts: facts)
    }

    func testAnUnderCreditedOrderOfQuantitiesPastInt64IsHeldAtItsBounds() {
        // paid - credited overflowed: Int64.max - (-1) trapped (Swift runtime failure: arithmetic overflow).
        let f = finding(.droppedOrder, "under_credited") {
            $0.set(.quantityPaid, Int64.max)
            $0.set(.quantityCredited, Int64(-1))
            $0.set(.quantitySource, "quantity")
        }
        XCTAssertEqual(
            FindingSentence.text(f),
            "paid 9223372036854775807, credited -1 (the quantity the client reported): 9223372036854775807 unit(s) not delivered")
        XCTAssertEqual(FindingAction.of(f).quantity, Int64.max)
    }

    func testABacklogOfTimesPastInt64IsAged() {
        // as_of_ms - oldest_request_ms overflowed.
        let f = finding(.verificationBacklog, "no_verify_response") {
            $0.set(.unresolvedCount, 1)
            $0.set(.oldestRequestId, "r1")
            $0.set(.oldestRequestMs, Int64.min)
            $0.set(.asOfMs, Int64.max)
        }
        XCTAssertEqual(
            FindingSentence.text(f), "1 unresolved request(s); oldest r1 is 5124095576030.4 h old at as-of, no answer from Apple")
        let usual = finding(.verificationBacklog, "no_verify_response") {
            $0.set(.unresolvedCount, 2)
            $0.set(.oldestRequestId, "r1")
            $0.set(.oldestRequestMs, Int64(1_790_000_000_000))
            $0.set(.asOfMs, Int64(1_790_000_000_000 + 90 * 60_000))
        }
        XCTAssertEqual(FindingSentence.text(usual), "2 unresolved request(s); oldest r1 is 1.5 h old at as-of, no answer from Apple")
    }

    func testANegativeRevocationPercentageIsWritten() {
        // Its fraction's digits ("-500") were padded with a negative count of zeros: a trap.
        XCTAssertEqual(FindingSentence.percent(-1500), "-1.5%")
        XCTAssertEqual(FindingSentence.percent(-50000), "-50%")
        XCTAssertEqual(FindingSentence.percent(Int.min), "-9223372036854775.808%")
        XCTAssertEqual(FindingSentence.percent(33333), "33.333%")
        XCTAssertEqual(FindingSentence.percent(50000), "50%")
        let f = finding(.refundStillGranted, "cancelled_not_revoked") {
            $0.set(.cancelledMs, Int64(0))
            $0.set(.revocationPercentage, Int64(-1500))
            $0.set(.holders, texts: ["u1"])
        }
        XCTAssertEqual(
            FindingSentence.text(f),
            "cancelled at 1970-01-01T00:00:00.000Z, revocationPercentage -1500 (-1.5% refunded); still granted to u1")
    }
}

/// Facts read back from a ledger (`FindingFacts(json:)`): what a run writes reads back the same; anything else is no facts
/// (nil), which `trace` and `ack` say is a damaged ledger, never read as facts of another shape.
final class FindingFactsReadingTests: XCTestCase {
    func testWhatARunWritesReadsBackTheSame() throws {
        var facts = FindingFacts()
        facts.set(.grants, objects: [["r\"1\\", "u\u{2028}\u{202E}1", nil], ["r2", nil, "T2"]])
        facts.set(.holders, texts: ["{\"user_id\":\"u1\"}", nil])
        facts.set(.quantityPaid, Int64.max)
        facts.set(.laterPurchases, objects: [["u1", "T", "P", Int64.min]])
        let read = try XCTUnwrap(FindingFacts(json: facts.json))
        XCTAssertEqual(read, facts)
        XCTAssertEqual(read.json, facts.json)
    }

    func testFactsOfAnotherShapeAreNone() {
        for json in [
            "not json", "[1,2]", "\"text\"", "", "{\"quantity_paid\":99999999999999999999}", "{\"quantity_paid\":3.5}",
            "{\"quantity_paid\":\"3\"}", "{\"request_ids\":\"r1\"}", "{\"request_ids\":[1]}", "{\"request_ids\":[null]}",
            "{\"grants\":{\"user_id\":\"u1\"}}", "{\"grants\":[{\"user_id\":[\"u1\"]}]}", "{\"grants\":[\"u1\"]}",
            "{\"later_purchases\":[{\"purchase_ms\":\"x\"}]}", "{\"proof_request_id\":null}",
            "{\"request_ids\":" + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}",
        ] {
            XCTAssertNil(FindingFacts(json: json), json.prefix(80).description)
        }
    }

    func testKeysThisVersionDoesNotDeclareAreLeftOutInObjectsToo() throws {
        // An undeclared key of a grant was kept, and `trace --redact` showed its user id in clear (only `user_id` is redacted).
        let read = try XCTUnwrap(
            FindingFacts(json: #"{"grants":[{"request_id":"r1","user_id":"u1","payer":"u276"}],"newer_fact":"u277","status":5}"#))
        XCTAssertEqual(read.json, #"{"status":5,"grants":[{"request_id":"r1","user_id":"u1"}]}"#)
    }
}

/// `trace` and `ack` on a ledger whose findings or actions no run wrote (docs/security.md, A damaged ledger): they stop
/// (exit 1) naming the row and the repair, instead of showing no facts or a made-up action.
final class DamagedFindingRowsTests: XCTestCase {
    /// A ledger of one finding, dropped_order:100 (never_sent), with `sql` run on it.
    func ledger(_ sql: String) throws -> String {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        TestPaths.write(
            #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "product_id": "p", "state": "purchased"}"#,
            to: input + "/client.jsonl")
        XCTAssertEqual(CLIRun(["run", input, "--out", out, "--as-of", "2026-10-03T00:00:00Z"]).status, 0)
        try SQLiteDatabase(path: out + "/audit.sqlite").execute(sql)
        return out
    }

    /// `finding_action` rebuilt without its types, keys and checks (a rebuilt table takes anything).
    private static let rebuilt = """
        CREATE TABLE copied AS SELECT * FROM finding_action; DROP TABLE finding_action;
        CREATE TABLE finding_action (finding_id, code, user_id, product_id, quantity, amount_milliunits, currency, transaction_id,
            because, status, open_code, note, acknowledged_by, acknowledged_at, request_ids);
        INSERT INTO finding_action SELECT * FROM copied; DROP TABLE copied;
        """

    private func assertDamaged(_ out: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for format in ["text", "json"] {
            let trace = CLIRun(["trace", "100", "--out", out, "--format", format])
            XCTAssertEqual(trace.status, 1, trace.out, file: file, line: line)
            XCTAssertTrue(
                trace.err.contains("\(out)/audit.sqlite: error: damaged ledger: \(what): the trace stopped"), trace.err, file: file,
                line: line)
            XCTAssertTrue(trace.err.contains("repair: run again with the same inputs"), trace.err, file: file, line: line)
        }
    }

    func testAnIntactLedgerIsTraced() throws {
        let out = try ledger("SELECT 1")
        let trace = CLIRun(["trace", "100", "--out", out, "--format", "json"])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertTrue(trace.out.contains(#""facts":{"reported_ms":1790812800000}"#), trace.out)
    }

    func testFactsARunDoesNotWriteAreADamagedLedger() throws {
        for facts in ["not json", "[1,2]", #"{"reported_ms":"yesterday"}"#, #"{"reported_ms":1e30}"#] {
            let out = try ledger("UPDATE finding SET facts = '\(facts)'")
            assertDamaged(
                out,
                "finding row dropped_order:100 holds facts that are not a JSON object of the declared facts "
                    + "(Sources/LedgerDeclarations/Findings.swift)")
        }
    }

    func testActionRowsARunDoesNotWriteAreADamagedLedger() throws {
        let row = "finding_action row dropped_order:100"
        assertDamaged(try ledger(Self.rebuilt + "UPDATE finding_action SET code = 'steal'"), row + " holds an action code no run writes")
        assertDamaged(
            try ledger(Self.rebuilt + "UPDATE finding_action SET status = NULL"),
            row + " holds a value of another type than a run writes in status")
        assertDamaged(
            try ledger(Self.rebuilt + "UPDATE finding_action SET quantity = 'many'"),
            row + " holds a value of another type than a run writes in quantity")
        assertDamaged(try ledger(Self.rebuilt + "INSERT INTO finding_action SELECT * FROM finding_action"), row + " is held 2 times")
        assertDamaged(
            try ledger("UPDATE finding_action SET request_ids = '{\"r1\": 1}'"), row + " holds request_ids that are no JSON list of ids")
    }

    func testAckOfADamagedActionChangesNothing() throws {
        let out = try ledger(Self.rebuilt + "UPDATE finding_action SET code = 'steal'")
        let ack = CLIRun(["ack", "dropped_order:100", "--note", "ticket 1", "--out", out])
        XCTAssertEqual(ack.status, 1, ack.out)
        XCTAssertTrue(
            ack.err.contains("damaged ledger: finding_action row dropped_order:100 holds an action code no run writes: the ack stopped"),
            ack.err)
        let db = try SQLiteDatabase(path: out + "/audit.sqlite")
        XCTAssertEqual(try db.scalar("SELECT count(*) FROM finding_action WHERE code = 'steal'"), 1)
        XCTAssertEqual(try db.scalar("SELECT count(*) FROM finding_state WHERE status = 'acknowledged'"), 0)
    }
}

extension DamagedFindingRowsTests {
    /// A note of line breaks and tabs says nothing: refused as an empty one (it was stored as the ack's note).
    func testAnAckNoteOfLineBreaksIsRefused() throws {
        let out = try ledger("SELECT 1")
        let ack = CLIRun(["ack", "dropped_order:100", "--note", "\n\t \r\n", "--out", out])
        XCTAssertEqual(ack.status, 64, ack.out)
        XCTAssertTrue(ack.err.contains("--note TEXT is required"), ack.err)
    }
}
