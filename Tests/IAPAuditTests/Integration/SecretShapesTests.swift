import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// The shared secret in every shape an input may hold it (a value of any type, a key JSON escaped or in
/// another case, a body escaped once or twice, a CSV column), on lines imported, rejected and broken: its
/// value is in no table of audit.sqlite, no part of audit.xlsx, and nothing `run`, `run --json` or
/// `trace` print. JSON Lines lines keep no raw text; a verifyReceipt document is stored whole, so each shape is
/// one too.
final class SecretShapesTests: XCTestCase {
    /// A member holding the secret given (a string, or for `numberShapes` digits), as JSON text.
    static let shapes: [(name: String, member: @Sendable (String) -> String)] = [
        ("string", { #""password": "\#($0)""# }),
        ("object", { #""password": {"value": "\#($0)", "n": [1, "}"]}"# }),
        ("array", { #""password": ["\#($0)", {"b": "]"}]"# }),
        ("nested object", { #""password": {"a": {"b": ["\#($0)"]}}"# }),
        ("escaped key", { #""p\u0061ssword": "\#($0)""# }),
        ("escaped first letter", { #""\u0070assword": "\#($0)""# }),
        ("escaped upper case", { #""\u0050ASSWORD": {"v": "\#($0)"}"# }),
        ("upper case", { #""PASSWORD": "\#($0)""# }),
        ("title case", { #""Password": "\#($0)""# }),
        ("SHARED_SECRET", { #""SHARED_SECRET": "\#($0)""# }),
        ("shared-secret", { #""shared-secret": "\#($0)""# }),
        ("sharedSecret", { #""sharedSecret": ["\#($0)"]"# }),
        ("escaped underscore", { #""shared\u005fsecret": "\#($0)""# }),
        ("quotes inside", { #""password": "\"\#($0)\\\"x""# }),
        ("spaces", { #""password"  :  "\#($0)""# }),
        ("in a nested member", { #""request": {"password": "\#($0)"}"# }),
        ("in an array of objects", { #""items": [{"x": 1}, {"password": "\#($0)"}]"# }),
        ("body escaped once", { #""body": "{\"password\": \"\#($0)\"}""# }),
        ("body escaped once, escaped key", { #""body": "{\"p\\u0061ssword\": \"\#($0)\"}""# }),
        ("body escaped once, object", { #""body": "{\"password\": {\"v\": \"\#($0)\"}}""# }),
        ("body escaped twice", { #""body": "{\"inner\": \"{\\\"password\\\": \\\"\#($0)\\\"}\"}""# }),
        ("body escaped twice, array", { #""body": "{\"inner\": \"{\\\"shared_secret\\\": [\\\"\#($0)\\\"]}\"}""# }),
    ]
    static let numberShapes: [(name: String, member: @Sendable (String) -> String)] = [
        ("number", { #""password": \#($0)"# }),
        ("number, escaped key", { #""sh\u0061red_secret": \#($0)"# }),
        ("number in a body", { #""body": "{\"password\": \#($0)}""# }),
    ]

    func testNoShapeOfTheSharedSecretReachesTheLedgerTheWorkbookOrTheOutput() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        let response =
            #""status": 0, "environment": "Production", "receipt": {"receipt_type": "Production", "bundle_id": "com.example.app", "in_app": [{"quantity": "1", "product_id": "com.example.gems60", "transaction_id": "2000000400000001", "original_transaction_id": "2000000400000001", "in_app_ownership_type": "PURCHASED"}]}"#
        var secrets: [String: String] = [:]  // secret → shape
        var lines: [String] = []
        let all = Self.shapes.map { ($0.name, $0.member, false) } + Self.numberShapes.map { ($0.name, $0.member, true) }
        for (k, (name, member, number)) in all.enumerated() {
            // One secret per shape and line kind: a leak names its shape.
            let secret = { (kind: Int) in number ? "9\(kind)7\(String(format: "%02d", k))4861203" : "zq-secret-\(kind)-\(k)-zq" }
            for kind in 0..<4 { secrets[secret(kind)] = "\(name) (\(["imported", "rejected", "broken", "document"][kind]))" }
            // A verifyReceipt answer as a document (more than one line: one line is JSON Lines): stored whole in
            // apple_record.raw_json.
            TestPaths.write("{\n  " + member(secret(3)) + ",\n  " + response + "\n}\n", to: input + "/answer-\(k).json")
            // Imported: the member in Apple's answer (stored whole in apple_record.raw_json).
            lines.append(
                #"{"request_id": "ok\#(k)", "received_at": "2026-10-01T09:07:00Z", "response": {\#(member(secret(0))), \#(response)}}"#)
            // Rejected: a bad field; broken: the line cut in the middle.
            lines.append(#"{"request_id": "bad\#(k)", "received_at": "yesterday", \#(member(secret(1))), "response": {\#(response)}}"#)
            lines.append(#"{"request_id": "cut\#(k)", \#(member(secret(2))), "response": {"status": "#)
        }
        TestPaths.write(lines.joined(separator: "\n") + "\n", to: input + "/verify.jsonl")
        // A client report CSV with a password column: a row imported, one rejected, two not split as the header.
        let csv = [
            "ts,user_id,device_id,transaction_id,original_transaction_id,product_id,state,error_code,quantity,Password",
            "1790820384000,u6,604F7DD2-A2DF-4B1B-B6B0-8E94CCAC7606,2000000400000001,2000000400000001,com.example.gems60,purchased,,1,zq-csv-0-zq",
            "yesterday,u6,604F7DD2-A2DF-4B1B-B6B0-8E94CCAC7606,2000000400000002,2000000400000002,com.example.gems60,purchased,,1,\"zq-csv-1-zq\"",
            "1790820384000,u6,604F7DD2-A2DF-4B1B-B6B0-8E94CCAC7606,2000000400000003,2000000400000003,com.example.gems60,purchased,,1,zq-csv-2-zq,extra",
            "1790820384000,u6,604F7DD2-A2DF-4B1B-B6B0-8E94CCAC7606,2000000400000004,2000000400000004,com.example.gems60,purchased,,1,\"zq-csv-3-zq",
        ]
        TestPaths.write(csv.joined(separator: "\n") + "\n", to: input + "/client.csv")
        for k in 0..<4 { secrets["zq-csv-\(k)-zq"] = "CSV row \(k + 1)" }

        let run = CLIRun(["run", input, "--out", out])
        XCTAssertEqual(run.status, 0, run.err)
        let json = CLIRun(["run", input, "--out", out, "--json"])
        let trace = CLIRun(["trace", "bad0", "--out", out])
        let traceJSON = CLIRun(["trace", "bad0", "--out", out, "--format", "json"])

        // Every line accounted for: each JSON line and CSV row imported or rejected, the rejections holding the
        // placeholder (or the withheld note) where the secret was.
        let counts =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rejected = [r[0] for r in db.execute("SELECT raw_text FROM rejection ORDER BY file_id, line")]
                print(json.dumps({"rejected": len(rejected), "apple": db.execute("SELECT count(*) FROM apple_record").fetchone()[0],
                  "client": db.execute("SELECT count(*) FROM client_report").fetchone()[0],
                  "placeholder": sum(1 for t in rejected if "[redacted]" in t), "withheld": sum(1 for t in rejected if "[withheld" in t)}))
                """, args: [out + "/audit.sqlite"]) as! [String: Int]
        XCTAssertEqual(
            counts, ["rejected": 2 * all.count + 3, "apple": 2 * all.count, "client": 1, "placeholder": 2 * all.count + 1, "withheld": 2])
        let stored =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([sum(1 for (t,) in db.execute("SELECT raw_json FROM apple_record") if t and "[redacted]" in t)]))
                """, args: [out + "/audit.sqlite"]) as! [Int]
        XCTAssertEqual(stored, [all.count], "every document stored with the placeholder where the secret was")

        // The secret's value nowhere: every table's text, the database's bytes, the workbook's parts, the output.
        let tables =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                texts = []
                for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    for row in db.execute('SELECT * FROM "%s"' % t):
                        texts += [v if isinstance(v, str) else v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in row if v is not None]
                print(json.dumps(["\\n".join(texts)]))
                """, args: [out + "/audit.sqlite"]) as! [String]
        var places: [(String, Data)] = [("audit.sqlite's tables", Data(tables[0].utf8))]
        for file in try FileManager.default.contentsOfDirectory(atPath: out) where file.hasPrefix("audit.sqlite") {
            places.append((file, try Data(contentsOf: URL(fileURLWithPath: out + "/" + file))))
        }
        for (name, bytes) in try SecretOutputTests.unzipped(out + "/audit.xlsx") { places.append(("audit.xlsx " + name, bytes)) }
        for (name, text) in [
            ("run stdout", run.out), ("run stderr", run.err), ("run --json", json.out + json.err), ("trace", trace.out + trace.err),
            ("trace --json", traceJSON.out + traceJSON.err),
        ] {
            places.append((name, Data(text.utf8)))
        }
        XCTAssertTrue(trace.out.contains("\(input)/verify.jsonl:2"), "trace shows the rejected line: \(trace.out)")
        for (secret, shape) in secrets.sorted(by: { $0.key < $1.key }) {
            for (place, bytes) in places { XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(shape): its secret in \(place)") }
        }
    }

    /// What a hostile tester found stored and printed: a rejection's reason quotes the bad value (a JSON body in
    /// `ts`, `verify_status`, a client `state`, a verifyReceipt `purchase_date_ms`), a CSV field holds a JSON body
    /// (quotes doubled) or a form-encoded one (`password=…&receipt-data=…`). No secret in any table, the
    /// database's bytes, the workbook or what `run` and `run --json` print; each line rejected, its reason and raw
    /// text holding the placeholder.
    func testARejectionReasonOrACSVFieldQuotingTheSecretHoldsNoSecret() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        TestPaths.write(
            [
                #"{"ts":"{\"password\":\"zq-ts-zq\"}","request_id":"r1","user_id":"u1","transaction_ids":["1"],"granted":true}"#,
                #"{"ts":"2026-10-01T00:02:00Z","request_id":"r2","user_id":"u1","transaction_ids":["2"],"granted":true,"verify_status":"{\"shared_secret\":\"zq-status-zq\"}"}"#,
                #"{"ts":"2026-10-01T00:03:00Z","request_id":"r3","user_id":"u1","transaction_ids":["3"],"granted":true,"verify_status":"password=zq-form-zq&receipt-data=x"}"#,
            ].joined(separator: "\n") + "\n", to: input + "/server.jsonl")
        TestPaths.write(
            #"{"ts":"2026-10-01T00:01:09Z","user_id":"u1","device_id":"0266E8F1-0265-4B19-A29B-5A847B95686A","transaction_id":"2000000400000001","original_transaction_id":"2000000400000001","product_id":"com.example.gems60","state":"{\"password\":\"zq-state-zq\"}","quantity":1}"#
                + "\n", to: input + "/client.jsonl")
        TestPaths.write(
            #"{"request_id":"r9","received_at":"2026-10-01T00:01:14Z","response":{"status":0,"environment":"Production","receipt":{"receipt_type":"Production","bundle_id":"com.example.app","in_app":[{"quantity":"1","product_id":"com.example.gems60","transaction_id":"2000000400000001","original_transaction_id":"2000000400000001","purchase_date_ms":"{\"password\":\"zq-date-zq\"}","in_app_ownership_type":"PURCHASED"}]}}}"#
                + "\n", to: input + "/verify.jsonl")
        TestPaths.write(
            "ts,request_id,user_id,transaction_ids,granted,request_body\n"
                + #"2026-10-01T00:00:00Z,rq1,u1,1,notabool,"{""password"":""zq-csv-zq""}""# + "\n"
                + #"2026-10-01T00:00:00Z,rq2,u1,1,notabool,"password=zq-csvform-zq&receipt-data=MIIT""# + "\n", to: input + "/server.csv")
        let secrets = ["zq-ts-zq", "zq-status-zq", "zq-form-zq", "zq-state-zq", "zq-date-zq", "zq-csv-zq", "zq-csvform-zq"]

        let run = CLIRun(["run", input, "--out", out])
        let json = CLIRun(["run", input, "--out", out + "-json", "--json"])
        XCTAssertTrue(run.err.contains(#"server.jsonl:1: error: field 'ts': not a timestamp: "{"password":"[redacted]"}""#), run.err)
        let rejected =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rows = db.execute("SELECT reason, raw_text FROM rejection").fetchall()
                print(json.dumps({"rejected": len(rows), "reasons": sum(1 for r in rows if "[redacted]" in r[0]),
                  "texts": sum(1 for r in rows if "[redacted]" in r[1])}))
                """, args: [out + "/audit.sqlite"]) as! [String: Int]
        // Seven lines rejected; five reasons quote the secret's value (the CSV rows' reasons name `granted`).
        XCTAssertEqual(rejected, ["rejected": 7, "reasons": 5, "texts": 7])
        let tables =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                texts = []
                for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    for row in db.execute('SELECT * FROM "%s"' % t):
                        texts += [v if isinstance(v, str) else v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in row if v is not None]
                print(json.dumps(["\\n".join(texts)]))
                """, args: [out + "/audit.sqlite"]) as! [String]
        var places: [(String, Data)] = [("audit.sqlite's tables", Data(tables[0].utf8))]
        for file in try FileManager.default.contentsOfDirectory(atPath: out) where file.hasPrefix("audit.sqlite") {
            places.append((file, try Data(contentsOf: URL(fileURLWithPath: out + "/" + file))))
        }
        for (name, bytes) in try SecretOutputTests.unzipped(out + "/audit.xlsx") { places.append(("audit.xlsx " + name, bytes)) }
        for (name, text) in [("run stdout", run.out), ("run stderr", run.err), ("run --json", json.out + json.err)] {
            places.append((name, Data(text.utf8)))
        }
        for secret in secrets {
            for (place, bytes) in places { XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(secret) in \(place)") }
        }
    }
}
