import Foundation
import XCTest

@testable import IAPAuditCLI

/// A claimed dropped order (the client reports a purchase nobody sent: `ask_apple`) becomes payable when the next night
/// brings Apple's verified signed transaction listing it (`credit`): `run --json` `changes.payable`, the text summary and
/// the Changes sheet list it, with Apple's price (issue 29).
final class PayableChangesTests: XCTestCase {
    static let lostOrder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/order-id-lookup-lost-order"
    static let t = "2000000400000102"

    /// Night 1: the lost-order case without Apple's Look Up Order ID answer, and u8's client report of the gems300 (never
    /// sent). Night 2 adds the answer (a verified JWS, USD 4.99). Returns the feed and the ledger's folder.
    func nightOne() throws -> (feed: String, out: String) {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let feed = root + "/feed"
        try FileManager.default.createDirectory(atPath: feed, withIntermediateDirectories: true)
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
            try FileManager.default.copyItem(atPath: Self.lostOrder + "/" + name, toPath: feed + "/" + name)
        }
        let client = try String(contentsOfFile: feed + "/client.jsonl", encoding: .utf8)
        TestPaths.write(
            client
                + #"{"ts": "2026-10-12T09:03:30Z", "user_id": "u8", "transaction_id": "\#(Self.t)", "product_id": "com.example.gems300", "state": "purchased", "quantity": 1}"#
                + "\n", to: feed + "/client.jsonl")
        let anchor = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/signing/throwaway-root.pem"
        TestPaths.write(
            #"{"bundle_ids": ["com.example.app"], "products": {"com.example.gems60": "consumable", "com.example.gems300": "consumable"}, "jws_trust_anchors": ["\#(anchor)"]}"#,
            to: feed + "/config.json")
        let first = CLIRun(["run", feed, "--out", root + "/out", "--as-of", "2026-10-15T00:00:00Z"])
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertFalse(first.out.contains("became payable"), first.out)
        XCTAssertEqual(try codes(root + "/out"), [["dropped_order:\(Self.t)", "ask_apple", "NULL", "NULL"]])
        try FileManager.default.copyItem(atPath: Self.lostOrder + "/order-lookup.jsonl", toPath: feed + "/order-lookup.jsonl")
        return (feed, root + "/out")
    }

    /// The ledger's `finding_action` rows: id, code, amount, currency.
    func codes(_ out: String) throws -> [[AnyHashable]] {
        try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([["NULL" if v is None else v for v in r] for r in db.execute(
                    "SELECT finding_id, code, amount_milliunits, currency FROM finding_action ORDER BY finding_id")]))
                """, args: [out + "/audit.sqlite"]) as? [[AnyHashable]])
    }

    func testTheTextSummaryListsIt() throws {
        let (feed, out) = try nightOne()
        let second = CLIRun(["run", feed, "--out", out, "--as-of", "2026-10-15T00:00:00Z"])
        XCTAssertEqual(second.status, 0, second.err)
        let lines = second.out.components(separatedBy: "\n").filter { $0.contains("payable") }
        XCTAssertEqual(
            lines,
            [
                "  became payable: 1 (ask_apple → credit: an Apple record now confirms the payment)",
                "  payable    dropped_order:\(Self.t) \(Self.t) to u8: com.example.gems300 ×1, USD 4.99: Apple confirms the payment and "
                    + "nobody was credited: credit it",
            ])
        XCTAssertEqual(try codes(out), [["dropped_order:\(Self.t)", "credit", 4990, "USD"]])
        // Run again on the same inputs: nothing recorded, and the stored action is credit already.
        let again = CLIRun(["run", feed, "--out", out, "--as-of", "2026-10-15T00:00:00Z"])
        XCTAssertFalse(again.out.contains("payable"), again.out)
    }

    func testRunJSONAndTheChangesSheetListIt() throws {
        let (feed, out) = try nightOne()
        let second = CLIRun(["run", feed, "--out", out, "--as-of", "2026-10-15T00:00:00Z", "--json"])
        XCTAssertEqual(second.status, 0, second.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as? [String: Any])
        let payable = try XCTUnwrap((json["changes"] as? [String: Any])?["payable"] as? [[String: Any]])
        XCTAssertEqual(payable.count, 1)
        let data = try JSONSerialization.data(withJSONObject: payable[0], options: [.sortedKeys])
        XCTAssertEqual(
            String(decoding: data, as: UTF8.self),
            #"{"amount_milliunits":4990,"at":null,"because":"Apple confirms the payment and nobody was credited: credit it","by":null,"#
                + #""code":"credit","currency":"USD","finding_id":"dropped_order:\#(Self.t)","note":null,"open_code":null,"#
                + #""product_id":"com.example.gems300","quantity":1,"request_ids":[],"status":"open","transaction_id":"\#(Self.t)","#
                + #""user_id":"u8"}"#)
        let sheet = try XCTUnwrap(
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    ws = openpyxl.load_workbook(sys.argv[1])["Changes"]
                    rows = [[plain(c) for c in r] for r in ws.iter_rows(values_only=True)]
                    at = next(i for i, r in enumerate(rows) if r[0] == "finding_id")
                    print(json.dumps({"title": rows[0][0], "payable_title": rows[at - 1][0], "header": rows[at], "row": rows[at + 1],
                                      "format": ws.cell(at + 2, 6).number_format, "after": rows[at + 2:]}))
                    """, args: [out + "/audit.xlsx"]) as? [String: Any])
        XCTAssertTrue((sheet["title"] as? String)?.hasSuffix("; 1 became payable (ask_apple → credit), listed below") == true)
        XCTAssertEqual(sheet["payable_title"] as? String, "Became payable since run 1 (ask_apple → credit): 1")
        XCTAssertEqual(
            (sheet["header"] as? [Any])?.prefix(8).map { $0 as? String },
            ["finding_id", "transaction_id", "user_id", "product_id", "quantity", "amount", "currency", "because"])
        let row = try XCTUnwrap(sheet["row"] as? [Any])
        XCTAssertEqual(row.prefix(4).map { $0 as? String }, ["dropped_order:\(Self.t)", Self.t, "u8", "com.example.gems300"])
        XCTAssertEqual(row[4] as? Int, 1)
        XCTAssertEqual(row[5] as? Int, 4990)  // USD 4.99: milliunits, shown in units by the format
        XCTAssertEqual(sheet["format"] as? String, "#,##0.00,_);[Red]-#,##0.00,_)")
        XCTAssertEqual(row[6] as? String, "USD")
        XCTAssertEqual(row[7] as? String, "Apple confirms the payment and nobody was credited: credit it")
        XCTAssertEqual((sheet["after"] as? [Any])?.count, 0)
    }
}
