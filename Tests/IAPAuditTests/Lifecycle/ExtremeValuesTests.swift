import Foundation
import XCTest

@testable import IAPAuditModel

/// Every number a record stores is within ±2^53, the largest a workbook cell holds exactly (issue 27, attack b: one
/// `latency_ms` or verifyReceipt `status` of 2^53 + 1 was stored, and every later run's workbook failed). JSON Lines and
/// CSV here; the report readers' limits: `AppleSalesReportTests`.
final class ExtremeValuesTests: XCTestCase {
    static let readLedger = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps({
            "rejected": [f"{p.rsplit('/', 1)[1]}:{l} {r}" for p, l, r in db.execute(
                "SELECT f.path, r.line, r.reason FROM rejection r JOIN source_file f USING (file_id) ORDER BY f.path, r.line")],
            "client": [list(r) for r in db.execute("SELECT length(user_id), error_code, quantity FROM client_report ORDER BY line")],
            "server": [list(r) for r in db.execute("SELECT verify_status, latency_ms FROM server_request ORDER BY ts_ms")],
            "verify": [list(r) for r in db.execute("SELECT status FROM apple_record ORDER BY line")]}))
        """

    static let max = "9007199254740992", past = "9007199254740993"

    func testTheLargestValuesAreStoredAndReportedAndOnePastIsARejectedLine() throws {
        let root = TestPaths.scratch(), input = root + "/in", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let user = String(repeating: "u", count: 4096)
        let client = [
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"\#(user)","transaction_id":"2000000000000001","product_id":"p","state":"failed","error_code":\#(Self.max),"quantity":\#(Self.max)}"#,
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u2","transaction_id":"2000000000000002","product_id":"p","state":"failed","error_code":-\#(Self.max)}"#,
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u3","transaction_id":"2000000000000003","product_id":"p","state":"purchased","quantity":\#(Self.past)}"#,
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u4","transaction_id":"2000000000000004","product_id":"p","state":"failed","error_code":-\#(Self.past)}"#,
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u\#(user)","transaction_id":"2000000000000005","product_id":"p","state":"failed"}"#,
        ]
        let server = [
            #"{"ts":"2026-10-01T10:00:01Z","request_id":"r1","user_id":"u1","transaction_ids":["2000000000000001"],"verify_status":\#(Self.max),"granted":false,"latency_ms":\#(Self.max)}"#,
            #"{"ts":"2026-10-01T10:00:02Z","request_id":"r2","user_id":"u1","transaction_ids":["2000000000000001"],"verify_status":-\#(Self.max),"granted":false,"latency_ms":0}"#,
            #"{"ts":"2026-10-01T10:00:03Z","request_id":"r3","user_id":"u1","transaction_ids":["2000000000000001"],"verify_status":0,"granted":false,"latency_ms":\#(Self.past)}"#,
            #"{"ts":"2026-10-01T10:00:04Z","request_id":"r4","user_id":"u1","transaction_ids":["2000000000000001"],"verify_status":-\#(Self.past),"granted":false}"#,
            #"{"ts":"2026-10-01T10:00:05Z","request_id":"r5","user_id":"u1","transaction_ids":["2000000000000001"],"verify_status":0,"granted":false,"latency_ms":1e400}"#,
        ]
        let verify = [
            #"{"request_id":"r1","received_at":"2026-10-01T10:00:01Z","response":{"status":\#(Self.max)}}"#,
            #"{"request_id":"r3","received_at":"2026-10-01T10:00:03Z","response":{"status":\#(Self.past)}}"#,
        ]
        let csv = [
            "ts,request_id,user_id,transaction_ids,verify_status,granted,latency_ms",
            "2026-10-01T10:00:06Z,r6,u1,2000000000000001,0,false,\(Self.max)",
            "2026-10-01T10:00:07Z,r7,u1,2000000000000001,0,false,\(Self.past)",
        ]
        for (name, lines) in [("client.jsonl", client), ("server.jsonl", server), ("verify.jsonl", verify), ("server.csv", csv)] {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input + "/" + name))
        }
        let range = "is out of range (at most 2^53 = 9007199254740992 either way: the largest number a workbook cell holds exactly)"
        for _ in 1...2 {
            try? FileManager.default.removeItem(atPath: out + "/audit.xlsx")
            let run = CLIRun(["run", input, "--out", out])
            XCTAssertEqual(run.status, 0, run.err)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.xlsx"), run.err)
            let ledger = try PythonReader.run(Self.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
            XCTAssertEqual(
                ledger["rejected"] as? [String],
                [
                    "client.jsonl:3 field 'quantity': \(Self.past) \(range)",
                    "client.jsonl:4 field 'error_code': -\(Self.past) \(range)",
                    "client.jsonl:5 field 'user_id': longer than 4096 bytes",
                    "server.csv:3 field 'latency_ms': \(Self.past) \(range)",
                    "server.jsonl:3 field 'latency_ms': \(Self.past) \(range)",
                    "server.jsonl:4 field 'verify_status': -\(Self.past) \(range)",
                    "server.jsonl:5 field 'latency_ms': expected an integer, found \"1e400\"",
                    "verify.jsonl:2 field 'status': \(Self.past) \(range)",
                ])
            XCTAssertEqual("\(ledger["client"]!)", "[[4096, \(Self.max), \(Self.max)], [2, -\(Self.max), <null>]]")
            XCTAssertEqual("\(ledger["server"]!)", "[[\(Self.max), \(Self.max)], [-\(Self.max), 0], [0, \(Self.max)]]")
            XCTAssertEqual("\(ledger["verify"]!)", "[[\(Self.max)]]")
        }
    }
}
