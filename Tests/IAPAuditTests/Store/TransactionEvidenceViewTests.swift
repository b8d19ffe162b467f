import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// Support's `transaction_evidence` view, read by Python's sqlite3: Apple's answer to a request that
/// carried the transaction is listed even when it does not list the transaction (an error status, a
/// receipt without it): exactly the answers a lost-order investigation needs. Findings come one row
/// per user, with their evidence.
final class TransactionEvidenceViewTests: XCTestCase {
    func testAnswersThatDoNotListTheTransactionAreShownOncePerAnswer() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        TestPaths.write(
            """
            {"ts":"2026-10-01T12:00:00Z","user_id":"u1","transaction_id":"2000000400000001","product_id":"p","state":"purchased"}
            {"ts":"2026-10-01T12:00:00Z","user_id":"u2","transaction_id":"2000000400000002","product_id":"p","state":"purchased"}
            """, to: input + "/client.jsonl")
        // rA is logged twice (a retry): its answer is still one row.
        TestPaths.write(
            """
            {"ts":"2026-10-01T12:00:01Z","request_id":"rA","user_id":"u1","transaction_ids":["2000000400000001"],"verify_status":21003,"granted":false}
            {"ts":"2026-10-01T12:00:03Z","request_id":"rA","user_id":"u1","transaction_ids":["2000000400000001"],"verify_status":21003,"granted":false}
            {"ts":"2026-10-01T12:00:01Z","request_id":"rB","user_id":"u2","transaction_ids":["2000000400000002"],"verify_status":0,"granted":false}
            """, to: input + "/server.jsonl")
        TestPaths.write(
            """
            {"request_id":"rA","received_at":"2026-10-01T12:00:02Z","response":{"status":21003}}
            {"request_id":"rB","received_at":"2026-10-01T12:00:02Z","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[]}}}
            """, to: input + "/verify.jsonl")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out, asOfMs: Timestamp.parseMs("2026-10-05T00:00:00Z")))
        func evidence(_ id: String) throws -> [[String]] {
            try PythonReader.run(
                """
                import json, os, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rows = db.execute("SELECT source, file, line, user_id, detail FROM transaction_evidence "
                                  "WHERE transaction_id = ? ORDER BY time, source", (sys.argv[2],)).fetchall()
                print(json.dumps([[s, (os.path.basename(f) if f else '') + ':' + (str(l) if l else ''), u or '', d.replace(sys.argv[3], '')]
                                  for s, f, l, u, d in rows]))
                """, args: [out + "/audit.sqlite", id, input + "/"]) as! [[String]]
        }
        XCTAssertEqual(
            try evidence("2000000400000001"),
            [
                ["client_report", "client.jsonl:1", "u1", "state purchased, product p"],
                [
                    "finding", ":", "u1",
                    "dropped_order/verify_failed: last status 21003: receipt could not be authenticated (rA; requests rA); "
                        + "evidence client.jsonl:1, server.jsonl:1, server.jsonl:2, verify.jsonl:1",
                ],
                ["server_request", "server.jsonl:1", "u1", "verify rA, not granted, logged status 21003"],
                ["verify_receipt", "verify.jsonl:1", "u1", "answer to request rA: status 21003, does not list this transaction"],
                ["server_request", "server.jsonl:2", "u1", "verify rA, not granted, logged status 21003"],
            ])
        XCTAssertEqual(
            try evidence("2000000400000002").map { $0[0] + " " + $0[1] },
            ["client_report client.jsonl:2", "finding :", "server_request server.jsonl:3", "verify_receipt verify.jsonl:2"])
        XCTAssertEqual(
            try evidence("2000000400000002").last?[3], "answer to request rB: status 0, Production, does not list this transaction")
    }

    /// A renewal credited through its original id: the request that posted the original id is among the
    /// renewal's evidence (its answer lists the renewal under that original id), once, saying so; a request
    /// that carried the renewal's own id too is listed once, as carrying it.
    func testTheRequestThatPostedTheOriginalIdIsEvidenceOfTheRenewal() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let (original, renewal) = ("2000000400000001", "2000000400000002")
        TestPaths.write(
            """
            {"ts":"2026-09-01T09:01:00Z","request_id":"r1","user_id":"u1","transaction_ids":["\(original)"],"verify_status":0,"granted":true}
            {"ts":"2026-10-01T09:01:00Z","request_id":"r2","user_id":"u1","transaction_ids":["\(original)"],"verify_status":0,"granted":true}
            {"ts":"2026-10-02T09:01:00Z","request_id":"r3","user_id":"u1","transaction_ids":["\(original)","\(renewal)"],"granted":false}
            {"ts":"2026-10-03T09:01:00Z","request_id":"r4","user_id":"u2","transaction_ids":["20000004000000011"],"granted":false}
            """, to: input + "/server.jsonl")
        func item(_ id: String, _ ms: String) -> String {
            #"{"quantity":"1","product_id":"p","transaction_id":"\#(id)","original_transaction_id":"\#(original)","purchase_date_ms":"\#(ms)"}"#
        }
        TestPaths.write(
            """
            {"request_id":"r1","received_at":"2026-09-01T09:01:01Z","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[\(item(original, "1788253200000"))]}}}
            {"request_id":"r2","received_at":"2026-10-01T09:01:01Z","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[\(item(original, "1788253200000")),\(item(renewal, "1790845200000"))]}}}
            """, to: input + "/verify.jsonl")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out, asOfMs: Timestamp.parseMs("2026-10-05T00:00:00Z")))
        let rows =
            try PythonReader.run(
                """
                import json, os, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rows = db.execute("SELECT source, file, line, user_id, detail FROM transaction_evidence "
                                  "WHERE transaction_id = ? AND source = 'server_request' ORDER BY time", (sys.argv[2],)).fetchall()
                print(json.dumps([[os.path.basename(f) + ':' + str(l), u, d] for s, f, l, u, d in rows]))
                """, args: [out + "/audit.sqlite", renewal]) as! [[String]]
        XCTAssertEqual(
            rows,
            [
                [
                    "server.jsonl:1", "u1",
                    "verify r1, granted, logged status 0, carried its original id \(original), not this transaction's id",
                ],
                [
                    "server.jsonl:2", "u1",
                    "verify r2, granted, logged status 0, carried its original id \(original), not this transaction's id",
                ],
                ["server.jsonl:3", "u1", "verify r3, not granted, no status logged"],
            ], "every request that posted the original id (r1 credited the original purchase), never r4's look-alike id")
        let originalRows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([r[0] for r in db.execute(
                    "SELECT detail FROM transaction_evidence WHERE transaction_id = ? AND source = 'server_request'", (sys.argv[2],))]))
                """, args: [out + "/audit.sqlite", original]) as! [String]
        XCTAssertEqual(originalRows.count, 3, "the original purchase's own requests, as carrying it: \(originalRows)")
        XCTAssertFalse(originalRows.joined().contains("carried its original id"))
    }

    /// A granted request's grant set is its `credited_transaction_ids` when logged (semantics.md rule 5): a
    /// carried id it leaves out is "granted but did not credit this id", with what it did credit; the
    /// request that posted a renewal's original id says so when it credited neither.
    func testAGrantedRequestThatDidNotCreditTheIdSaysSo() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let (original, renewal) = ("2000000400000001", "2000000400000002")
        TestPaths.write(
            """
            {"ts":"2026-10-01T09:01:00Z","request_id":"r1","user_id":"u1","transaction_ids":["\(original)","2000000400000009"],"verify_status":0,"granted":true,"credited_transaction_ids":["2000000400000009"]}
            {"ts":"2026-10-02T09:01:00Z","request_id":"r2","user_id":"u1","transaction_ids":["\(original)"],"verify_status":0,"granted":true,"credited_transaction_ids":[]}
            {"ts":"2026-10-03T09:01:00Z","request_id":"r3","user_id":"u1","transaction_ids":["\(original)"],"verify_status":0,"granted":true,"credited_transaction_ids":["\(original)"]}
            """, to: input + "/server.jsonl")
        TestPaths.write(
            """
            {"request_id":"r3","received_at":"2026-10-03T09:01:01Z","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[{"quantity":"1","product_id":"p","transaction_id":"\(renewal)","original_transaction_id":"\(original)","purchase_date_ms":"1790845200000"}]}}}
            """, to: input + "/verify.jsonl")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out, asOfMs: Timestamp.parseMs("2026-10-05T00:00:00Z")))
        func requests(_ id: String) throws -> [String] {
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([r[0] for r in db.execute(
                    "SELECT detail FROM transaction_evidence WHERE transaction_id = ? AND source = 'server_request' ORDER BY time",
                    (sys.argv[2],))]))
                """, args: [out + "/audit.sqlite", id]) as! [String]
        }
        XCTAssertEqual(
            try requests(original),
            [
                "verify r1, granted but did not credit this id (credited 2000000400000009), logged status 0",
                "verify r2, granted but did not credit this id (credited nothing), logged status 0",
                "verify r3, granted, logged status 0",
            ])
        let carried = ", logged status 0, carried its original id \(original), not this transaction's id"
        XCTAssertEqual(
            try requests(renewal),
            [
                "verify r1, granted but credited neither this id nor its original id (credited 2000000400000009)" + carried,
                "verify r2, granted but credited neither this id nor its original id (credited nothing)" + carried,
                "verify r3, granted" + carried,
            ])
    }
}
