import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReport

/// What `trace` shows of records that lead to no transaction, over the lost-order case
/// (Fixtures/cases/order-id-lookup-lost-order) and a few more lines written here (OUT/in): u7's records
/// naming no transaction, written out of time order; lines the run rejects (a bad `ts`, `"granted": "yes"`,
/// a user id with white space) holding ids no record holds; a Look Up Order ID answer of status 1.
final class TraceUnattachedTests: XCTestCase {
    static let out = TestPaths.scratch("traceunattached")
    nonisolated(unsafe) static var ran = false

    /// The lines added to the case, by file.
    static let inputs: [String: [String]] = [
        "client.jsonl": [
            #"{"ts": "2026-10-13T08:00:00Z", "user_id": "u7", "device_id": "D7", "product_id": "com.example.gems300", "state": "failed", "error_code": 2}"#,
            #"{"ts": "2026-10-11T08:00:00Z", "user_id": "u7", "device_id": "D7", "product_id": "com.example.gems300", "state": "purchasing"}"#,
            #"{"ts": "2026-10-12T25:61:00Z", "user_id": "u-rejected", "device_id": "D-REJ", "transaction_id": "2000000499999999", "product_id": "com.example.gems60", "state": "purchased"}"#,
            // A longer id holding it: not the id.
            #"{"ts": "yesterday", "user_id": "u-rejected", "device_id": "D-REJ", "transaction_id": "20000004999999991", "product_id": "com.example.gems60", "state": "purchased"}"#,
            #"{"ts": "2026-10-12T09:05:00Z", "user_id": " u-space", "device_id": "D-REJ", "transaction_id": "2000000488888888", "product_id": "com.example.gems60", "state": "purchased"}"#,
        ],
        "server.jsonl": [
            #"{"ts": "2026-10-12T09:10:00Z", "request_id": "r-rej-1", "user_id": "u7", "transaction_ids": ["2000000477777777"], "verify_status": 0, "granted": "yes"}"#
        ],
        "order-lookup.jsonl": [#"{"order_id": "MK5TTTVWJZ", "received_at": "2026-10-14T10:05:00Z", "response": {"status": 1}}"#],
    ]

    func ledger() throws -> String {
        if !Self.ran {
            let folder = Self.out + "/in"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, lines) in Self.inputs {
                try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            }
            try TraceLostOrderTests.run(into: Self.out, more: [folder])
            Self.ran = true
        }
        return Self.out
    }

    func trace(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        TraceLostOrderTests.trace(arguments, out: Self.out)
    }

    /// A user's records naming no transaction, oldest first (the log has them newest first), in the text
    /// and in the workbook's Timeline.
    func testRecordsNamingNoTransactionAreInTimeOrder() throws {
        let run = try trace(["u7", "--out", try ledger()])
        XCTAssertEqual(run.status, 0, run.err)
        let section = try XCTUnwrap(run.out.components(separatedBy: "\n\n").last)
        XCTAssertEqual(
            section,
            """
            == records of u7 naming no transaction
            time (UTC)  source  file:line  what it says
            2026-10-11T08:00:00.000Z  client_report  OUT/in/client.jsonl:2  client: purchasing com.example.gems300, no transaction id (user u7, device D7)
            2026-10-13T08:00:00.000Z  client_report  OUT/in/client.jsonl:1  client: failed com.example.gems300, error_code 2 (cancelled), no transaction id (user u7, device D7)
            """)
        let result = try TracePipeline.run(id: "u7", ledgerPath: try ledger() + "/audit.sqlite").result
        let timeline = try XCTUnwrap(TraceWorkbook.build(result).sheets.first { $0.name == "Timeline" }?.tables.first?.rows).all()
        XCTAssertEqual(
            timeline.suffix(2).map { row -> String in
                guard case .text(let location) = row[3] else { return "?" }
                return TraceTests.portable(location, out: Self.out)
            }, ["OUT/in/client.jsonl:2", "OUT/in/client.jsonl:1"])
    }

    /// An id only rejected lines hold: where they are and why the run could not read them, what to do, exit 2.
    func testAnIdOnlyInRejectedLinesSaysWhereTheyAre() throws {
        let out = try ledger()
        let searched =
            TraceLostOrderTests.searched + "\nno near match (another case, white space around it, or one or two characters off at its end)"
        let client = try trace(["2000000499999999", "--out", out])
        XCTAssertEqual(client.status, 2)
        XCTAssertEqual(
            client.out,
            """
            trace 2000000499999999: no record in the ledger holds this id
            ledger OUT/audit.sqlite, as of 2026-10-15T00:00:00.000Z
            \(searched)
            found in 1 rejected line: OUT/in/client.jsonl:3 (field 'ts': not a timestamp: "2026-10-12T25:61:00Z" (expected ISO 8601 or epoch milliseconds, 1900–2200))
            next action: fix the line and run again: the run could not read it
            """)
        let server = try trace(["2000000477777777", "--out", out])
        XCTAssertEqual(server.status, 2)
        XCTAssertTrue(
            server.out.hasSuffix(
                """
                \nfound in 1 rejected line: OUT/in/server.jsonl:1 (field 'granted': expected a boolean, found "yes")
                next action: fix the line and run again: the run could not read it
                """), server.out)
        let user = try trace(["u-rejected", "--out", out])
        XCTAssertTrue(
            user.out.hasSuffix(
                """
                \nfound in 2 rejected lines:
                  OUT/in/client.jsonl:3 (field 'ts': not a timestamp: "2026-10-12T25:61:00Z" (expected ISO 8601 or epoch milliseconds, 1900–2200))
                  OUT/in/client.jsonl:4 (field 'ts': not a timestamp: "yesterday" (expected ISO 8601 or epoch milliseconds, 1900–2200))
                next action: fix the lines and run again: the run could not read them
                """), user.out)
        // Inside a longer id is not the id; an id no line holds has no rejected line: check the id.
        XCTAssertTrue(
            try trace(["200000049999999", "--out", out]).out.hasSuffix(
                searched + "\nnext action: check the id against the ticket; if it is right, no record of this ledger holds it: run over "
                    + "the logs and Apple's answers of the purchase's days, and for an Apple order id keep a Look Up Order ID answer for it "
                    + "(docs/trace.md)"))
        XCTAssertTrue(
            try trace(["2000000499999999", "--out", out, "--format", "json"]).out.contains(
                #""next_action":{"code":"fix_input","text":"fix the line and run again: the run could not read it"}"#))
        let json = try trace(["2000000477777777", "--out", out, "--format", "json"]).out
        XCTAssertTrue(
            json.contains(
                #""rejected_lines":[{"location":"OUT/in/server.jsonl:1","reason":"field 'granted': expected a boolean, found \"yes\""}]"#),
            json)
    }

    /// Under `--redact`, a rejected line's reason as redacted outputs show it; its raw text never.
    func testARedactedTraceShowsTheReasonRedacted() throws {
        let run = try trace([
            "2000000488888888", "--out", try ledger(), "--redact", "--redact-key", RedactionCheck.keyFile(TraceRedactionTests.key),
        ])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(
            run.out.hasSuffix(
                """
                \nfound in 1 rejected line: OUT/in/client.jsonl:5 (field 'user_id': [redacted] has white space at its start or end (ids are exact text: remove it))
                next action: fix the line and run again: the run could not read it
                """), run.out)
        XCTAssertFalse(run.out.contains("u-space"), run.out)
    }

    /// An order id Apple does not know (Look Up Order ID status 1): its answer, and what to tell the customer.
    func testAnOrderIdAppleDoesNotKnow() throws {
        let run = try trace(["MK5TTTVWJZ", "--out", try ledger()])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(
            run.out,
            """
            trace MK5TTTVWJZ: Apple order id (apple_record.order_id); 0 transactions
            ledger OUT/audit.sqlite, as of 2026-10-15T00:00:00.000Z

            == records of MK5TTTVWJZ naming no transaction
            time (UTC)  source  file:line  what it says
            2026-10-14T10:05:00.000Z  server_api  OUT/in/order-lookup.jsonl:1  Apple Look Up Order ID MK5TTTVWJZ: status 1, invalid order id; lists no transaction
            next action: tell the customer: Apple does not know this order id (check it against the invoice: it is the Order ID on the emailed receipt)
            """)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try trace(["MK5TTTVWJZ", "--out", try ledger(), "--format", "json"]).out.utf8))
                as? [String: Any])
        XCTAssertEqual(
            json["next_action"] as? [String: String],
            ["code": "tell_customer", "text": run.out.components(separatedBy: "next action: ").last!])
        let answer = try XCTUnwrap((json["unattached"] as? [[String: Any]])?.first?["apple"] as? [String: Any])
        XCTAssertEqual(answer["order_status"] as? Int, 1)
        // The known order id's answer lists its transactions: no such record, no such action.
        XCTAssertFalse(try trace(["MK5TTTVWJH", "--out", try ledger()]).out.contains("naming no transaction"))
    }
}
