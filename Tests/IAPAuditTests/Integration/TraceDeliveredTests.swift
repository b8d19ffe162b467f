import Foundation
import XCTest

@testable import IAPAuditCLI

/// A delivered purchase (credited, no problem finding) says when, to whom, by which request and how many, in the text, the
/// JSON (words and `verdict.delivered`) and the workbook; the quantity comes from the server log's `credited_quantity`, else
/// Apple's listing, else the client's report, and each credit on the timeline says it. The Verdicts sheet gives the
/// purchase date, product and Apple's verified price (issue 29: support read "no action" for a disputed delivered order).
final class TraceDeliveredTests: XCTestCase {
    static let lostOrder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/order-id-lookup-lost-order"

    /// T11 credited 2 by r1 (logged `credited_quantity` 2); T12 credited by r2, no quantity logged, Apple's answer
    /// lists none, the client reported 3.
    static func quantityFeed(_ feed: String) {
        try? FileManager.default.createDirectory(atPath: feed, withIntermediateDirectories: true)
        let item = { (t: String, q: String) in
            #"{"transaction_id":"\#(t)","original_transaction_id":"\#(t)","product_id":"com.example.gems60"\#(q)}"#
        }
        let answer = { (r: String, at: String, item: String) in
            #"{"request_id":"\#(r)","received_at":"\#(at)","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example.app","in_app":[\#(item)]}}}"#
        }
        TestPaths.write(
            #"""
            {"ts":"2026-10-01T10:00:00Z","user_id":"u1","transaction_id":"2000000000000011","product_id":"com.example.gems60","state":"purchased","quantity":2}
            {"ts":"2026-10-01T11:00:00Z","user_id":"u2","transaction_id":"2000000000000012","product_id":"com.example.gems60","state":"purchased","quantity":3}

            """#, to: feed + "/client.jsonl")
        TestPaths.write(
            #"""
            {"ts":"2026-10-01T10:00:05Z","request_id":"r1","user_id":"u1","transaction_ids":["2000000000000011"],"granted":true,"verify_status":0,"environment":"Production","credited_quantity":2}
            {"ts":"2026-10-01T11:00:05Z","request_id":"r2","user_id":"u2","transaction_ids":["2000000000000012"],"granted":true,"verify_status":0,"environment":"Production"}

            """#, to: feed + "/server.jsonl")
        TestPaths.write(
            answer("r1", "2026-10-01T10:00:06Z", item("2000000000000011", #","quantity":"2""#)) + "\n"
                + answer("r2", "2026-10-01T11:00:06Z", item("2000000000000012", "")) + "\n", to: feed + "/verify.jsonl")
        TestPaths.write(
            #"{"bundle_ids": ["com.example.app"], "products": {"com.example.gems60": "consumable"}}"#, to: feed + "/config.json")
    }

    func ledger(_ folder: String, asOf: String? = nil) -> String {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let run = CLIRun(["run", folder, "--out", out] + (asOf.map { ["--as-of", $0] } ?? []))
        XCTAssertEqual(run.status, 0, run.err)
        return out
    }

    func traced(_ id: String, _ out: String) throws -> [String: Any] {
        let trace = CLIRun(["trace", id, "--out", out, "--format", "json"])
        XCTAssertEqual(trace.status, 0, trace.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(trace.out.utf8)) as? [String: Any])
        return try XCTUnwrap((json["transactions"] as? [[String: Any]])?.first { $0["transaction_id"] as? String == id })
    }

    /// JSON text with sorted keys, for comparing what JSONSerialization read.
    func canonical(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The lines of the text trace that start with `prefix`.
    func lines(_ id: String, _ out: String, _ prefix: String) -> [String] {
        let trace = CLIRun(["trace", id, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        return trace.out.components(separatedBy: "\n").filter { $0.hasPrefix(prefix) }
    }

    func testTheTextSaysDeliveredWithEachQuantityAndItsSource() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        Self.quantityFeed(root + "/feed")
        let out = ledger(root + "/feed")
        let feed = root + "/feed"
        XCTAssertEqual(
            lines("2000000000000011", out, "next action:"),
            [
                "next action: delivered: credited on 2026-10-01T10:00:05.000Z to u1 (request r1, quantity 2 as the server logged it); "
                    + "Apple confirms payment (\(feed)/verify.jsonl:1)"
            ])
        XCTAssertEqual(
            lines("2000000000000012", out, "next action:"),
            [
                "next action: delivered: credited on 2026-10-01T11:00:05.000Z to u2 (request r2, quantity 3 as the client reported it); "
                    + "Apple confirms payment (\(feed)/verify.jsonl:2)"
            ])
        // The timeline's credit says it too.
        XCTAssertEqual(
            lines("2000000000000011", out, "2026-10-01T10:00:05.000Z"),
            [
                "2026-10-01T10:00:05.000Z  server_request  \(feed)/server.jsonl:1  verify r1 by u1: posted 2000000000000011; granted; "
                    + "credited it, quantity 2 as the server logged it; logged status 0 (valid receipt), Production"
            ])
    }

    func testTheJSONGivesWhoWhenAndHowManyAsData() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        Self.quantityFeed(root + "/feed")
        let out = ledger(root + "/feed")
        for (id, user, request, ms, quantity, source) in [
            ("2000000000000011", "u1", "r1", 1_790_848_805_000, 2, "credited_quantity"),
            ("2000000000000012", "u2", "r2", 1_790_852_405_000, 3, "client"),
        ] {
            let t = try traced(id, out)
            let verdict = try XCTUnwrap(t["verdict"] as? [String: Any])
            XCTAssertEqual(
                canonical(verdict["delivered"]),
                #"[{"credited_ms":\#(ms),"quantity":\#(quantity),"quantity_source":"\#(source)","request_id":"\#(request)","user_id":"\#(user)"}]"#
            )
            XCTAssertEqual((verdict["next_action"] as? [String: String])?["code"], "no_action")
            XCTAssertTrue((verdict["next_action"] as? [String: String])?["text"]?.hasPrefix("delivered: credited on ") == true)
            let requests = try XCTUnwrap(t["timeline"] as? [[String: Any]]).compactMap { $0["request"] as? [String: Any] }
            XCTAssertEqual(requests.map { $0["credited_quantity"] as? Int }, [quantity])
            XCTAssertEqual(requests.map { $0["quantity_source"] as? String }, [source])
        }
    }

    /// Apple's quantity when the log gives none (the lost order's credited gems60); a transaction with a problem finding
    /// delivers nothing.
    func testApplesQuantityAndNothingDeliveredUnderAFinding() throws {
        let out = ledger(Self.lostOrder)
        let credited = try traced("2000000400000101", out)
        XCTAssertEqual(
            canonical((credited["verdict"] as? [String: Any])?["delivered"]),
            #"[{"credited_ms":1791795602000,"quantity":1,"quantity_source":"apple","request_id":"r7a","user_id":"u7"}]"#)
        let lost = try traced("2000000400000102", out)
        XCTAssertEqual(canonical((lost["verdict"] as? [String: Any])?["delivered"]), "[]")
    }

    /// The Verdicts sheet: purchase date, product, Apple's verified price (milliunits shown in units by the format) and its
    /// currency beside; the Timeline's credit row its quantity.
    func testTheWorkbookGivesPurchaseDatePriceAndQuantity() throws {
        let out = ledger(Self.lostOrder)
        let trace = CLIRun(["trace", "MK5TTTVWJH", "--out", out, "--format", "xlsx"])
        XCTAssertEqual(trace.status, 0, trace.err)
        let read = try XCTUnwrap(
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    wb = openpyxl.load_workbook(sys.argv[1])
                    rows = lambda name: [[plain(c) for c in r] for r in wb[name].iter_rows(values_only=True)]
                    v = wb["Verdicts"]
                    print(json.dumps({"verdicts": rows("Verdicts"), "timeline": rows("Timeline"), "format": v.cell(3, 5).number_format}))
                    """, args: [out + "/trace-MK5TTTVWJH.xlsx"]) as? [String: Any])
        let verdicts = try XCTUnwrap(read["verdicts"] as? [[Any]])
        XCTAssertEqual(
            verdicts[0].prefix(6).map { $0 as? String },
            ["transaction_id", "original_transaction_id", "product_id", "purchased (UTC)", "price", "currency"])
        let lost = try XCTUnwrap(verdicts.first { $0.first as? String == "2000000400000102" })
        XCTAssertEqual(lost[2] as? String, "com.example.gems300")
        XCTAssertEqual((lost[3] as? [String: String])?["datetime"], "2026-10-12T09:03:00")
        XCTAssertEqual(lost[4] as? Int, 4990)
        XCTAssertEqual(lost[5] as? String, "USD")
        XCTAssertEqual(read["format"] as? String, "#,##0.00,_);[Red]-#,##0.00,_)")
        let timeline = try XCTUnwrap(read["timeline"] as? [[Any]])
        XCTAssertEqual(timeline[0].last as? String, "quantity credited")
        let credit = try XCTUnwrap(timeline.first { ($0[3] as? String)?.hasSuffix("/server.jsonl:1") == true })
        XCTAssertEqual(credit.last as? Int, 1)
        XCTAssertTrue(try XCTUnwrap(timeline.first { ($0[3] as? String)?.hasSuffix("/verify.jsonl:1") == true }).last is NSNull)
    }
}
