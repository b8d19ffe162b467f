import Foundation
import XCTest

/// A loss is booked in the period it happens (FINANCE.md), by its finding's `loss_at_ms`, not by the earliest record
/// involved (`first_seen_ms`). Found by a finance user test: a purchase of July refunded in October and still granted
/// was July's loss, so October's close understated its losses and July's overstated them; a purchase of September 30
/// credited again on October 2 was September's duplicate credit.
final class CloseLossDateTests: XCTestCase {
    let refunded = "2000000400000001"
    let twice = "2000000400000002"

    /// The server's log and Apple's answers (T1's refund on 2026-10-15 in a bare response) in `folder`, and a price
    /// list beside it.
    func makeInputs(_ folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func grant(_ rid: String, _ id: String, _ user: String, _ ts: String) -> String {
            #"{"ts": "\#(ts)", "request_id": "\#(rid)", "user_id": "\#(user)", "transaction_ids": ["\#(id)"], "#
                + #""restore": false, "granted": true, "latency_ms": 120}"#
        }
        func item(_ id: String, purchased: String, cancelled: String? = nil) -> String {
            let ms = { (iso: String) in String(Int64(ISO8601DateFormatter().date(from: iso)!.timeIntervalSince1970 * 1000)) }
            return #"{"quantity": "1", "product_id": "com.example.gems60", "transaction_id": "\#(id)", "#
                + #""original_transaction_id": "\#(id)", "purchase_date_ms": "\#(ms(purchased))", "#
                + (cancelled.map { #""cancellation_date_ms": "\#(ms($0))", "cancellation_reason": "0", "# } ?? "")
                + #""in_app_ownership_type": "PURCHASED"}"#
        }
        func answer(_ item: String) -> String {
            #"{"status": 0, "environment": "Production", "receipt": {"receipt_type": "Production", "#
                + #""bundle_id": "com.example.app", "in_app": [\#(item)]}}"#
        }
        func verify(_ rid: String, _ ts: String, _ item: String) -> String {
            #"{"request_id": "\#(rid)", "received_at": "\#(ts)", "response": \#(answer(item))}"#
        }
        let july = "2026-07-10T10:00:00Z"
        let (sep30, oct2) = ("2026-09-30T12:00:00Z", "2026-10-02T09:00:00Z")
        TestPaths.write(
            // r4 (another purchase, on 2026-10-17) takes the server log a day past the refund: no revoke came (rule 26).
            [
                grant("r1", refunded, "u1", july), grant("r2", twice, "u2", sep30), grant("r3", twice, "u2", oct2),
                grant("r4", "2000000400000004", "u4", "2026-10-17T09:00:00Z"),
            ].joined(separator: "\n") + "\n", to: folder + "/server.jsonl")
        TestPaths.write(
            [
                verify("r1", july, item(refunded, purchased: july)), verify("r2", sep30, item(twice, purchased: sep30)),
                verify("r3", oct2, item(twice, purchased: sep30)),
                verify("r4", "2026-10-17T09:00:01Z", item("2000000400000004", purchased: "2026-10-17T08:59:00Z")),
            ].joined(separator: "\n") + "\n", to: folder + "/verify.jsonl")
        TestPaths.write(
            answer(item(refunded, purchased: july, cancelled: "2026-10-15T08:00:00Z")) + "\n", to: folder + "/apple-responses.jsonl")
        TestPaths.write(
            "product_id,storefront_or_currency,price,valid_from\ncom.example.gems60,USD,9.99,2026-01-01\n", to: folder + ".prices.csv")
    }

    func testALossIsBookedWhenItHappened() throws {
        let folder = TestPaths.scratch()
        let (input, out) = (folder + "/in", folder + "/out")
        try makeInputs(input)
        let run = CLIRun(["run", "--out", out, input])
        XCTAssertEqual(run.status, 0, run.err)
        for period in ["2026-07", "2026-09", "2026-10"] {
            let close = CLIRun(["close", "--period", period, "--prices", input + ".prices.csv", "--out", out, input])
            XCTAssertEqual(close.status, 0, close.err)
        }
        let read = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps({
                    "losses": ["|".join(str(v) for v in r) for r in db.execute(
                        "SELECT period, kind, transaction_id, amount_milliunits, currency, first_seen_ms, loss_at_ms FROM close_loss "
                        "ORDER BY period, kind")],
                    "findings": ["|".join(str(v) for v in r) for r in db.execute(
                        "SELECT kind, transaction_id, first_seen, loss_at, loss_at_ms FROM finding ORDER BY kind")],
                    "totals": ["|".join(str(v) for v in r) for r in db.execute(
                        "SELECT period, measure, value FROM close_total WHERE measure LIKE 'loss %' ORDER BY period, measure")]}))
                """, args: [out + "/audit.sqlite"]) as? [String: [String]])
        // The run's findings say when each loss happened: the refund, the second credit.
        XCTAssertEqual(
            read["findings"],
            [
                "duplicate_credit|\(twice)|2026-09-30T12:00:00.000Z|2026-10-02T09:00:00.000Z|1790931600000",
                "refund_still_granted|\(refunded)|2026-07-10T10:00:00.000Z|2026-10-15T08:00:00.000Z|1792051200000",
            ])
        // Both are October's losses, none July's or September's.
        XCTAssertEqual(
            read["losses"],
            [
                "2026-10|duplicate_credit|\(twice)|9990|USD|1790769600000|1790931600000",
                "2026-10|refund_still_granted|\(refunded)|9990|USD|1783677600000|1792051200000",
            ])
        XCTAssertEqual(read["totals"], ["2026-10|loss duplicate_credit|9990", "2026-10|loss refund_still_granted|9990"])
    }
}
