import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// The support ticket `trace` is for: "I paid on Oct 12 and got nothing; here is my Apple order id".
/// Fixtures/cases/order-id-lookup-lost-order holds the user's logs and a wrapped Look Up Order ID answer
/// whose signed transactions (JWS of a throw-away chain the case's config trusts) list a purchase nobody
/// credited; the order id alone finds it. Also: an unknown id, `--format json` and `--format xlsx`, and
/// the ledger's and the command line's errors.
final class TraceLostOrderTests: XCTestCase {
    static let out = TestPaths.scratch("tracelostorder")
    nonisolated(unsafe) static var ran = false
    static let caseFolder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/order-id-lookup-lost-order"

    func ledger() throws -> String {
        if !Self.ran {
            try Self.run(into: Self.out)
            Self.ran = true
        }
        return Self.out
    }

    /// Runs the case, and the inputs `more`, into `out` as of the case's day.
    static func run(into out: String, more: [String] = []) throws {
        let config = try ConfigLoader.load(path: caseFolder + "/config.json")
        var options = AuditOptions(paths: [caseFolder] + more, outputDirectory: out, config: config)
        options.asOfMs = Timestamp.parseMs("2026-10-15T00:00:00Z")
        _ = try AuditPipeline.run(options)
    }

    func trace(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) { Self.trace(arguments, out: Self.out) }

    /// `trace` through the command line, its output portable (the case's paths relative, `out` as OUT).
    static func trace(_ arguments: [String], out: String) -> (status: Int32, out: String, err: String) {
        let run = TraceTests.trace(arguments)
        let shown = { (text: String) in TraceTests.portable(text, out: out, base: caseFolder) }
        return (run.status, shown(run.out), shown(run.err))
    }

    func testTheLostOrderIsFoundFromItsAppleOrderIdAlone() throws {
        let run = try trace(["MK5TTTVWJH", "--out", try ledger()])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(
            run.out,
            """
            trace MK5TTTVWJH: Apple order id (apple_record.order_id); 2 transactions
            ledger OUT/audit.sqlite, as of 2026-10-15T00:00:00.000Z
            actions: credit manually 1 (2000000400000102), no action 1

            == transaction 2000000400000101 (original 2000000400000101, com.example.gems60, bought 2026-10-12T09:00:00.000Z)
            time (UTC)  source  file:line  what it says
            2026-10-12T09:00:01.000Z  client_report  client.jsonl:1  client: purchased com.example.gems60 (user u7, device 6F1C0007-8C2B-4FB7-8EC2-AD2F8EC00007)
            2026-10-12T09:00:02.000Z  server_request  server.jsonl:1  verify r7a by u7: posted 2000000400000101; granted, credited 2000000400000101; credited it, quantity 1 as Apple lists it; logged status 0 (valid receipt), Production, 140 ms
            2026-10-12T09:00:03.000Z  verify_receipt  verify.jsonl:1  Apple verifyReceipt answer to request r7a: status 0 (valid receipt), Production, lists it (in_app), purchased 2026-10-12T09:00:00.000Z, com.example.gems60, signature not_checked; proves the payment
            2026-10-14T10:00:00.000Z  server_api  order-lookup.jsonl:1  Apple Look Up Order ID MK5TTTVWJH: Production, lists it (server_api), purchased 2026-10-12T09:00:00.000Z, com.example.gems60, USD 0.99, signature verified; proves the payment
            findings: none
            Apple: confirms the payment (verify.jsonl:1)
            credited: u7 by r7a (server.jsonl:1)
            next action: delivered: credited on 2026-10-12T09:00:02.000Z to u7 (request r7a, quantity 1 as Apple lists it); Apple confirms payment (verify.jsonl:1)

            == transaction 2000000400000102 (original 2000000400000102, com.example.gems300, bought 2026-10-12T09:03:00.000Z)
            time (UTC)  source  file:line  what it says
            2026-10-14T10:00:00.000Z  server_api  order-lookup.jsonl:1  Apple Look Up Order ID MK5TTTVWJH: Production, lists it (server_api), purchased 2026-10-12T09:03:00.000Z, com.example.gems300, USD 4.99, signature verified; proves the payment
            findings:
              dropped_order/in_receipt_never_credited (error, apple_confirmation confirmed): in 1 production record(s) from Apple (server_api); never reported by the client, never granted
                dropped_order:2000000400000102: open since run 1
            Apple: confirms the payment (order-lookup.jsonl:1)
            credited: nobody
            next action: credit manually: Apple confirms payment (order-lookup.jsonl:1), no credit found; no log names its user
            """)
    }

    /// What an id that matches nothing says was searched.
    static let searched = """
        searched:
          transaction id: client_report.transaction_id, apple_transaction.transaction_id, finding.transaction_id, server_request.transaction_ids (first id)
          original transaction id: apple_transaction.original_transaction_id, client_report.original_transaction_id
          Apple order id: apple_record.order_id
          user id: client_report.user_id, server_request.user_id
          device id: client_report.device_id, server_request.device_id
          request id: server_request.request_id, apple_record.request_id
          web order line item id: apple_transaction.web_order_line_item_id
        """

    func testAnUnknownIdSaysWhatItSearchedAndItsNearMatches() throws {
        let out = try ledger()
        let run = try trace(["mk5tttvwjh", "--out", out])
        XCTAssertEqual(run.status, 2, "an unknown id exits 2")
        XCTAssertEqual(
            run.out,
            """
            trace mk5tttvwjh: no record in the ledger holds this id
            ledger OUT/audit.sqlite, as of 2026-10-15T00:00:00.000Z
            \(Self.searched)
            near matches: MK5TTTVWJH (Apple order id: other case)
            next action: check the id: did you mean MK5TTTVWJH (Apple order id)? if it is right, no record of this ledger holds it: \
            run over the logs and Apple's answers of the purchase's days, and for an Apple order id keep a Look Up Order ID answer \
            for it (docs/trace.md)
            """)
        // A transaction id with its last digit mistyped, a digit left out, one too many, two swapped; an id nothing is near.
        let near = { (id: String) in
            // --exact: 2000000400000110 would look spreadsheet-mangled (TraceMangledIdTests).
            try self.trace(["--exact", id, "--out", out]).out.components(separatedBy: "\n").first { $0.hasPrefix("near matches") } ?? ""
        }
        XCTAssertEqual(
            try near("2000000400000109"),
            "near matches: 2000000400000101 (transaction id: one character different near its end); "
                + "2000000400000102 (transaction id: one character different near its end)")
        XCTAssertEqual(
            try near("200000040000010"),
            "near matches: 2000000400000101 (transaction id: one character left out near its end); "
                + "2000000400000102 (transaction id: one character left out near its end)")
        XCTAssertEqual(try near("MK5TTTVWJHH"), "near matches: MK5TTTVWJH (Apple order id: one character too many near its end)")
        XCTAssertEqual(
            try near("2000000400000110"),
            "near matches: 2000000400000101 (transaction id: two characters swapped near its end); "
                + "2000000400000102 (transaction id: two characters off near its end)")
        XCTAssertEqual(try near(" mk5tttvwjh"), "near matches: MK5TTTVWJH (Apple order id: white space trimmed, other case)")
        XCTAssertTrue(
            try trace(["zzz", "--out", out]).out.hasSuffix(
                "no near match (another case, white space around it, or one or two characters off at its end)\nnext action: check the id "
                    + "against the ticket; if it is right, no record of this ledger holds it: run over the logs and Apple's answers of "
                    + "the purchase's days, and for an Apple order id keep a Look Up Order ID answer for it (docs/trace.md)"))
        // A line break pasted inside the id is shown escaped, never printed raw.
        let broken = try trace(["MK5T\nTTVWJH", "--out", out])
        XCTAssertEqual(broken.status, 2)
        XCTAssertTrue(broken.out.hasPrefix("trace \"MK5T\\nTTVWJH\": no record in the ledger holds this id\n"), broken.out)
        // An id pasted with white space around it: shown in quotes, the id itself its near match.
        let padded = try trace([" MK5TTTVWJH ", "--out", out])
        XCTAssertEqual(padded.status, 2)
        XCTAssertTrue(padded.out.hasPrefix("trace \" MK5TTTVWJH \": no record in the ledger holds this id\n"), padded.out)
        XCTAssertTrue(
            padded.out.hasSuffix(
                "\nnear matches: MK5TTTVWJH (Apple order id: white space trimmed)\nnext action: check the id: did you mean MK5TTTVWJH "
                    + "(Apple order id)? if it is right, no record of this ledger holds it: run over the logs and Apple's answers of the "
                    + "purchase's days, and for an Apple order id keep a Look Up Order ID answer for it (docs/trace.md)"), padded.out)
    }

    func testJSONIsOneObjectWithTheSameVerdicts() throws {
        let run = try trace(["MK5TTTVWJH", "--out", try ledger(), "--format", "json"])
        XCTAssertEqual(run.status, 0, run.err)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(object["found"] as? Bool, true)
        XCTAssertEqual(object["as_of"] as? String, "2026-10-15T00:00:00.000Z")
        let matched = try XCTUnwrap(object["matched_as"] as? [[String: Any]])
        XCTAssertEqual(matched.map { $0["kind"] as? String }, ["order_id"])
        let transactions = try XCTUnwrap(object["transactions"] as? [[String: Any]])
        XCTAssertEqual(transactions.map { $0["transaction_id"] as? String }, ["2000000400000101", "2000000400000102"])
        let lost = transactions[1]
        // When it was bought, by Apple's record: the date on the customer's ticket.
        XCTAssertEqual(lost["purchase_date"] as? String, "2026-10-12T09:03:00.000Z")
        let verdict = try XCTUnwrap(lost["verdict"] as? [String: Any])
        XCTAssertEqual(
            verdict["next_action"] as? [String: String],
            [
                "code": "credit_manually",
                "text": "credit manually: Apple confirms payment (order-lookup.jsonl:1), no credit found; no log names its user",
            ])
        XCTAssertEqual((verdict["apple"] as? [String: Any])?["confirmation"] as? String, "confirmed")
        XCTAssertEqual((verdict["apple"] as? [String: Any])?["record"] as? String, "order-lookup.jsonl:1")
        XCTAssertEqual((verdict["credits"] as? [Any])?.count, 0)
        let timeline = try XCTUnwrap(lost["timeline"] as? [[String: Any]])
        XCTAssertEqual(timeline.count, 1)
        let apple = try XCTUnwrap(timeline[0]["apple"] as? [String: Any])
        XCTAssertEqual(apple["order_id"] as? String, "MK5TTTVWJH")
        XCTAssertEqual(apple["status_meaning"] as? String, "Look Up Order ID: the order's signed transactions")
        let listing = try XCTUnwrap(apple["listing"] as? [String: Any])
        XCTAssertEqual(listing["price_milliunits"] as? Int, 4990)
        XCTAssertEqual(listing["currency"] as? String, "USD")
        XCTAssertEqual(listing["signature"] as? String, "verified")
        XCTAssertEqual(listing["proves_payment"] as? Bool, true)
        let findings = try XCTUnwrap(lost["findings"] as? [[String: Any]])
        XCTAssertEqual(
            findings.map { "\($0["kind"]!)/\($0["reason"]!)/\($0["apple_confirmation"]!)" },
            [
                "dropped_order/in_receipt_never_credited/confirmed"
            ])
        // A dropped order's loss is booked when first seen.
        XCTAssertEqual(findings.first?["loss_at"] as? String, findings.first?["first_seen"] as? String)
        XCTAssertNotNil(findings.first?["first_seen"] as? String)
        // The credited purchase's request, with what it credited.
        let credited = try XCTUnwrap(
            (transactions[0]["timeline"] as? [[String: Any]])?.compactMap { $0["request"] as? [String: Any] }.first)
        XCTAssertEqual(credited["credits_transaction"] as? Bool, true)
        XCTAssertEqual(credited["relation"] as? String, "posted")
        // An unknown id: found false, what was searched.
        let nope = try trace(["nope", "--out", try ledger(), "--format", "json"])
        XCTAssertEqual(nope.status, 2)
        let unknown = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(nope.out.utf8)) as? [String: Any])
        XCTAssertEqual(unknown["found"] as? Bool, false)
        XCTAssertEqual((unknown["searched"] as? [String: [String]])?["order_id"], ["apple_record.order_id"])
    }

    /// A workbook that cannot be written beside the ledger (here a folder stands in its way): the trace is
    /// printed all the same, the error says where and what to do, and the exit status is 1.
    func testAWorkbookThatCannotBeWrittenExits1AfterTheTrace() throws {
        let folder = TestPaths.scratch()
        try FileManager.default.copyItem(atPath: try ledger() + "/audit.sqlite", toPath: folder + "/audit.sqlite")
        try FileManager.default.createDirectory(atPath: folder + "/trace-MK5TTTVWJH.xlsx", withIntermediateDirectories: false)
        try "x".write(toFile: folder + "/trace-MK5TTTVWJH.xlsx/blocker", atomically: false, encoding: .utf8)
        let run = TraceTests.trace(["MK5TTTVWJH", "--ledger", folder + "/audit.sqlite", "--format", "xlsx"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.out.hasPrefix("trace MK5TTTVWJH: Apple order id (apple_record.order_id); 2 transactions\n"), run.out)
        XCTAssertFalse(run.out.contains("Wrote"), run.out)
        XCTAssertTrue(
            run.err.hasSuffix(
                "iap-audit: \(folder)/trace-MK5TTTVWJH.xlsx: error: cannot write output: Is a directory (the workbook goes beside the "
                    + "ledger: copy the ledger to a folder you can write, and trace it with --ledger FILE)"), run.err)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), [".audit.lock", "audit.sqlite", "trace-MK5TTTVWJH.xlsx"],
            "no .partial left")
    }

    func testWorkbookReadBackWithOpenpyxl() throws {
        let out = try ledger()
        let run = try trace(["MK5TTTVWJH", "--out", out, "--format", "xlsx"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.hasSuffix("Wrote OUT/trace-MK5TTTVWJH.xlsx"), run.out)
        let read =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                wb = openpyxl.load_workbook(sys.argv[1])
                cell = lambda v: v.isoformat() if hasattr(v, 'isoformat') else v
                print(json.dumps({ws.title: [[cell(c) for c in row] for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}))
                """, args: [out + "/trace-MK5TTTVWJH.xlsx"]) as? [String: [[Any]]]
        let sheets = try XCTUnwrap(read)
        XCTAssertEqual(Set(sheets.keys), ["Trace", "Verdicts", "Timeline", "Findings"])
        let text = { (row: [Any]) in row.map { ($0 as? String) ?? ($0 is NSNull ? "" : "\($0)") } }
        // The title, an empty header, then the rows.
        XCTAssertEqual(text(sheets["Trace"]![2]), ["id", "MK5TTTVWJH"])
        XCTAssertEqual(text(sheets["Trace"]![4]), ["as of", "2026-10-15T00:00:00"])
        XCTAssertEqual(text(sheets["Trace"]![6]), ["matched as Apple order id", "apple_record.order_id"])
        let verdicts = try XCTUnwrap(sheets["Verdicts"])
        XCTAssertEqual(
            text(verdicts[0]),
            [
                "transaction_id", "original_transaction_id", "product_id", "purchased (UTC)", "price", "currency", "findings", "apple",
                "apple record", "credited to", "revoked", "refunded (UTC)", "action", "next action",
            ])
        XCTAssertEqual(
            text(verdicts[2]).map { $0.replacingOccurrences(of: Self.caseFolder + "/", with: "") },
            [
                "2000000400000102", "2000000400000102", "com.example.gems300", "2026-10-12T09:03:00", "4990", "USD",
                "dropped_order/in_receipt_never_credited", "confirmed",
                "order-lookup.jsonl:1", "nobody", "", "", "credit_manually",
                "credit manually: Apple confirms payment (order-lookup.jsonl:1), no credit found; no log names its user",
            ])
        let timeline = try XCTUnwrap(sheets["Timeline"])
        XCTAssertEqual(timeline.count, 6)  // header + 4 records of the credited purchase + 1 of the lost one
        XCTAssertEqual(
            text(timeline[5]).prefix(4).map { $0.replacingOccurrences(of: Self.caseFolder + "/", with: "") },
            ["2000000400000102", "2026-10-14T10:00:00", "server_api", "order-lookup.jsonl:1"])
        XCTAssertEqual(
            text(try XCTUnwrap(sheets["Findings"]?[1])).prefix(5),
            ["2000000400000102", "dropped_order", "in_receipt_never_credited", "error", "confirmed"])
        XCTAssertEqual(
            Array(text(try XCTUnwrap(sheets["Findings"]?[1])).suffix(2)), ["dropped_order:2000000400000102", "open since run 1"])
    }

    /// Refunds as two scenario cases show them: a refunded purchase nobody credited needs nothing; a refund
    /// Apple reversed (a REFUND_REVERSED entry of a notification history page) is no refund; one that
    /// stands while granted is to be revoked.
    func testRefundsInTheVerdict() throws {
        func verdicts(_ name: String, _ ids: [String]) throws -> [String] {
            let folder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/" + name
            let out = TestPaths.scratch(name)
            let config = try ConfigLoader.load(path: folder + "/config.json")
            var options = AuditOptions(paths: [folder], outputDirectory: out, config: config)
            options.asOfMs = Timestamp.parseMs("2026-10-10T00:00:00Z")
            _ = try AuditPipeline.run(options)
            return try ids.map { id in
                let verdict = try TracePipeline.run(id: id, ledgerPath: out + "/audit.sqlite").result.transactions.first?.verdict
                return TraceTests.portable("\(verdict?.apple.code ?? "-") | \(verdict?.nextAction ?? "-")", out: out, base: folder)
            }
        }
        XCTAssertEqual(
            try verdicts("in-receipt-never-credited-refunded", ["2000000400000007", "2000000400000008"]),
            [
                "refunded | no action: refunded on 2026-10-02 (apple-responses.jsonl:1), never credited",
                "confirmed | credit manually: Apple confirms payment (apple-responses.jsonl:2), no credit found; no log names its user",
            ])
        XCTAssertEqual(
            try verdicts("refund-reversed-in-notification-history", ["2000000400000001", "2000000400000002"]),
            [
                "confirmed | delivered: credited on 2026-10-01T09:05:00.000Z to u1 (request r1, quantity 1 as Apple lists it); "
                    + "Apple confirms payment (verify.jsonl:1)",
                "confirmed | revoke: refunded on 2026-10-03 (notification-history.json:1) but still granted to u1",
            ])
    }

    /// The first trace of a ledger builds its trace indexes (a run does not) and says so on stderr.
    func testTheFirstTraceBuildsTheIndexes() throws {
        let out = TestPaths.scratch()
        _ = try AuditPipeline.run(AuditOptions(paths: [Self.caseFolder], outputDirectory: out))
        let first = TraceTests.trace(["u7", "--out", out])
        XCTAssertEqual(first.status, 0)
        XCTAssertTrue(first.err.hasPrefix("iap-audit: built the ledger's trace indexes in "), first.err)
        XCTAssertTrue(first.err.hasSuffix(" s (once after each run that changes the ledger)"), first.err)
        XCTAssertEqual(TraceTests.trace(["u7", "--out", out]).err, "")
    }

    func testLedgerAndUsageErrors() throws {
        let missing = TestPaths.scratch()
        let run = try trace(["T1", "--out", missing])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.err.replacingOccurrences(of: missing, with: "DIR"),
            "iap-audit: DIR/audit.sqlite: error: cannot read the ledger: no such file (make it with `iap-audit run PATH … --out DIR`, "
                + "then trace with --out DIR)")
        XCTAssertEqual(try trace(["T1", "--ledger", missing + "/audit.sqlite", "--format", "json"]).out.contains("\"exit\":1"), true)
        let folder = try trace(["T1", "--ledger", try ledger()])
        XCTAssertEqual(folder.status, 1)
        XCTAssertEqual(
            folder.err,
            "iap-audit: OUT: error: cannot read the ledger: a folder, not a ledger file (give --out DIR for DIR/audit.sqlite, "
                + "or --ledger DIR/audit.sqlite)")
        // A ledger of an older and of a newer schema, and of this schema with other tables.
        let copy = TestPaths.scratch() + "/audit.sqlite"
        try FileManager.default.copyItem(atPath: try ledger() + "/audit.sqlite", toPath: copy)
        let rerun = "run `iap-audit run PATH … --out DIR` into its folder again with this version, then trace"
        for (change, message) in [
            (
                "PRAGMA user_version = \(Schema.version - 1)",
                "made by an older iap-audit (schema \(Schema.version - 1); this one reads schema \(Schema.version)): \(rerun)"
            ),
            (
                "PRAGMA user_version = \(Schema.version + 1)",
                "made by a newer iap-audit (schema \(Schema.version + 1); this one reads schema \(Schema.version)): trace it with that version"
            ),
            (
                "PRAGMA user_version = \(Schema.version); UPDATE ledger_schema SET value = 'older' WHERE name = 'tables'",
                "made by another build of iap-audit (its tables differ from this one's): \(rerun)"
            ),
        ] {
            try SQLiteDatabase(path: copy).execute(change)
            let old = TraceTests.trace(["u7", "--ledger", copy])
            XCTAssertEqual(old.status, 1, change)
            XCTAssertEqual(old.err, "iap-audit: \(copy): error: cannot read the ledger: \(message)", change)
        }
        for (arguments, message) in [
            ([String](), "Error: missing ID (a transaction, order, user, device, request… id)"),
            (["a", "b"], "Error: one ID at a time"),
            (["a", "--format", "csv"], "Error: --format: expected text, json or xlsx, not 'csv'"),
            (["a", "--out", "x", "--ledger", "y"], "Error: give --out DIR or --ledger FILE, not both"),
            (["a", "--out", ""], "Error: an empty path (\"\") names no file or folder"),
            (["a", "--ledger", ""], "Error: an empty path (\"\") names no file or folder"),
        ] {
            let usage = try trace(arguments)
            XCTAssertEqual(usage.status, 64, "\(arguments)")
            XCTAssertEqual(usage.err.components(separatedBy: "\n").first, message, "\(arguments)")
        }
    }
}
