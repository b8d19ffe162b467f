import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// The wrapped Look Up Order ID answer (docs/inputs.md §5): `{"order_id", "received_at", "response"}`,
/// stored with its `order_id` on `apple_record`, read the same by the fast and the strict path.
final class OrderLookupWrapperTests: XCTestCase {
    static let caseFolder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/order-id-lookup-lost-order"

    private func read(_ lines: [String], fastPath: Bool = true) -> ImportedRecords {
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        return FileImporter.read(InputFile(path: "order-lookup.jsonl", data: data), checker: StubSignatureChecker(), fastPath: fastPath)
    }

    func testEveryShapeOfTheAnswerKeepsItsOrderId() throws {
        let lines = [
            // Apple's answer for an order id it does not know: status 1, no transactions.
            #"{"order_id": "MK5INVALID", "received_at": "2026-10-14T10:00:00Z", "response": {"status": 1}}"#,
            #"{"order_id": "MK6ERROR", "received_at": 1791972000000, "response": {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}}"#,
            // Fetched by a server request: linked to it as well.
            #"{"order_id": "MK7LINKED", "request_id": "r9", "received_at": "2026-10-14T10:00:00Z", "response": {"status": 0, "signedTransactions": []}}"#,
        ]
        for fastPath in [true, false] {
            let r = read(lines, fastPath: fastPath)
            XCTAssertEqual(r.rejections, [], "fast path \(fastPath)")
            XCTAssertEqual(r.kind, .serverAPIResponse)
            XCTAssertEqual(r.note, "App Store Server API Look Up Order ID responses with their order ids")
            XCTAssertEqual(r.appleRecords.map(\.orderId), ["MK5INVALID", "MK6ERROR", "MK7LINKED"])
            XCTAssertEqual(r.appleRecords.map(\.requestId), [nil, nil, "r9"])
            XCTAssertEqual(r.appleRecords.map(\.receivedAtMs), [1_791_972_000_000, 1_791_972_000_000, 1_791_972_000_000])
            XCTAssertEqual(r.appleRecords.map(\.status), [0, 4_290_000, 0])
            XCTAssertEqual(r.appleRecords.map(\.source), [.serverAPI, .serverAPI, .serverAPI])
            XCTAssertEqual(r.appleRecords[0].notes, ["status 1: invalid order id (Look Up Order ID)"])
        }
    }

    func testBadWrappersAreRejectedWithTheirLine() {
        let r = read([
            #"{"order_id": "MK5TTTVWJH", "response": {"status": 0, "signedTransactions": []}}"#,
            #"{"order_id": "MK5TTTVWJH", "received_at": "2026-10-14T10:00:00Z", "response": "eyJhbGciOi"}"#,
            #"{"order_id": 5.0, "received_at": "2026-10-14T10:00:00Z", "response": {"status": 0, "signedTransactions": []}}"#,
        ])
        XCTAssertEqual(r.appleRecords.count, 0)
        XCTAssertEqual(
            r.rejections.map { "\($0.location): \($0.reason)" },
            [
                "order-lookup.jsonl:1: missing required field 'received_at'",
                "order-lookup.jsonl:2: field 'response': expected Apple's Look Up Order ID response (status, signedTransactions) or error body (errorCode)",
                "order-lookup.jsonl:3: field 'order_id': 5.0 looks like an id a program wrote as a floating-point number ('.0' added or digits lost); write ids as text",
            ])
    }

    /// The recipe's last step: the value read back from SQLite, after a run over the support ticket's case.
    func testOrderIdIsStoredOnAppleRecord() throws {
        let out = TestPaths.scratch()
        let config = try ConfigLoader.load(path: Self.caseFolder + "/config.json")
        _ = try AuditPipeline.run(AuditOptions(paths: [Self.caseFolder], outputDirectory: out, config: config))
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute('''SELECT r.order_id, r.request_id, r.received_at_ms, r.status, r.source, r.signature,
                    (SELECT group_concat(t.transaction_id, ',') FROM apple_transaction t WHERE t.record_id = r.record_id)
                    FROM apple_record r WHERE r.order_id IS NOT NULL''').fetchall()))
                """, args: [out + "/audit.sqlite"]) as? [[Any]]
        XCTAssertEqual(rows?.count, 1)
        let row = try XCTUnwrap(rows?.first)
        XCTAssertEqual(row[0] as? String, "MK5TTTVWJH")
        XCTAssertTrue(row[1] is NSNull)
        XCTAssertEqual((row[2] as? NSNumber)?.int64Value, 1_791_972_000_000)
        XCTAssertEqual((row[3] as? NSNumber)?.intValue, 0)
        XCTAssertEqual(row[4] as? String, "server_api")
        XCTAssertEqual(row[5] as? String, "verified")
        XCTAssertEqual(row[6] as? String, "2000000400000101,2000000400000102")
    }
}
