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

/// A JSON Lines file holding records of several kinds is read line by line, each line as what it is
/// (the scenario with its findings: `Fixtures/cases/mixed-file-of-client-server-and-apple-lines`).
final class MixedFileTests: XCTestCase {
    static let client = #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "1", "state": "purchased"}"#
    static let server = #"{"ts": "2026-10-01T00:00:00Z", "request_id": "r9", "user_id": "u1", "transaction_ids": ["1"], "granted": true}"#
    static let wrapped = #"{"request_id": "r1", "received_at": "2026-10-01T00:00:01Z", "response": {"status": 0}}"#
    static let bare = #"{"status": 0, "receipt": {"in_app": [{"transaction_id": "1"}]}}"#

    func read(_ lines: [String], fastPath: Bool = true) -> ImportedRecords {
        FileImporter.read(InputFile(path: "log.jsonl", data: Data(lines.joined(separator: "\n").utf8)), fastPath: fastPath)
    }

    func testEachLineIsReadAsWhatItIs() {
        let file = read([Self.wrapped, Self.server, Self.client, Self.bare])
        XCTAssertEqual(file.appleRecords.map(\.requestId), ["r1", nil])
        XCTAssertEqual(file.serverRequests.map(\.requestId), ["r9"])
        XCTAssertEqual(file.clientReports.map(\.transactionId), ["1"])
        XCTAssertEqual(file.rejections.map(\.reason), [])
        XCTAssertEqual(file.kind, .mixed)
        XCTAssertEqual(
            file.note,
            "mixed: verifyReceipt responses linked to server requests, server transaction log, client reports, "
                + "verifyReceipt responses (bare, not linked to a request)")
        XCTAssertEqual(file.strictLines, 0, "every line of a known kind is read by its fast reader")
    }

    func testTwoShapesOfOneKindKeepTheKind() {
        let file = read([Self.wrapped, #"{"status": 21007}"#])
        XCTAssertEqual(file.kind, .verifyResponse)
        XCTAssertEqual(
            file.note, "mixed: verifyReceipt responses linked to server requests, verifyReceipt responses (bare, not linked to a request)")
    }

    /// A single-kind file keeps its kind and note; a line of no known kind is still checked as the
    /// file's kind (its message says what is missing).
    func testSingleKindFilesAreAsBefore() {
        let file = read([Self.server, #"{"ts": "2026-10-01T00:00:00Z", "request_id": "r2", "user_id": "u1"}"#])
        XCTAssertEqual(file.kind, .serverLog)
        XCTAssertEqual(file.note, "server transaction log")
        XCTAssertEqual(file.rejections.map(\.reason), ["missing required field 'transaction_ids'"])
    }

    /// The fast path takes a line for a kind only when `RecordShape.of` gives that kind too: lines
    /// carrying keys of two kinds read the same both ways.
    func testLinesOfTwoKindsReadTheSameBothWays() {
        let lines = [
            Self.client, Self.server, Self.wrapped, Self.bare,
            // A client line with a server's request_id and transaction_ids is a server-log line.
            #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "1", "state": "purchased", "request_id": "r", "transaction_ids": ["1"], "granted": true}"#,
            #"{"ts": "2026-10-01T00:00:00Z", "state": "failed"}"#,
            #"{"ts": "2026-10-01T00:00:00Z", "state": "purchased", "transaction_id": "1", "receipt_data": "MIIB"}"#,
            #"{"ts": "2026-10-01T00:00:00Z", "request_id": "r", "transaction_ids": ["1"], "granted": true, "response": {"status": 0}}"#,
            #"{"ts": "2026-10-01T00:00:00Z", "request_id": "r", "transaction_ids": ["1"], "granted": true, "Store": "x", "Payload": "y"}"#,
            #"{"status": 5}"#, #"{"status": "21002"}"#, #"{"status": 0, "notification_type": "CANCEL"}"#,
            #"{"status": 0, "hasMore": false, "revision": "x"}"#, #"{"status": 0, "data": [], "bundleId": "b"}"#,
            #"{"status": 0, "signedPayload": "x.y.z"}"#, #"{"status": 0, "environment": "Sandbox", "transactionReceipt": "MIIB"}"#,
            #"{"notificationType": "TEST", "notificationUUID": "u", "signedDate": 1790845200000}"#,
        ]
        for first in [Self.client, Self.server, Self.wrapped, Self.bare] {
            let fast = read([first] + lines)
            let strict = read([first] + lines, fastPath: false)
            XCTAssertEqual(fast.kind, strict.kind, first)
            XCTAssertEqual(fast.note, strict.note, first)
            XCTAssertEqual(fast.clientReports, strict.clientReports, first)
            XCTAssertEqual(fast.serverRequests, strict.serverRequests, first)
            XCTAssertEqual(fast.appleRecords, strict.appleRecords, first)
            XCTAssertEqual(fast.rejections, strict.rejections, first)
        }
    }
}
