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

/// Fields read as Apple writes them, and stored: the intro-offer flag of verifyReceipt items, the type
/// of the notification that listed a transaction, a history page without its empty list.
final class ReaderFieldTests: XCTestCase {
    static let verifyLines = [
        #"{"request_id": "r1", "received_at": "2026-10-01T09:00:00Z", "response": {"status": 0, "environment": "Production", "#
            + #""receipt": {"bundle_id": "com.example.app", "in_app": [{"transaction_id": "2000000400000001", "#
            + #""is_trial_period": "false", "is_in_intro_offer_period": "false"}, {"transaction_id": "2000000400000002", "#
            + #""is_in_intro_offer_period": "true"}, {"transaction_id": "2000000400000003"}]}}}"#,
        #"{"status": 0, "receipt": {"in_app": [{"transaction_id": "2000000400000004", "is_in_intro_offer_period": "yes"}]}}"#,
    ]

    static let notificationV1 = """
        {"notification_type": "DID_CHANGE_RENEWAL_STATUS", "environment": "PROD", "unified_receipt": {"status": 0,
         "latest_receipt_info": [{"transaction_id": "2000000400000001", "original_transaction_id": "2000000400000001"},
          {"transaction_id": "2000000400000002", "original_transaction_id": "2000000400000001"}]}}
        """

    /// `"is_in_intro_offer_period": "false"` is false (not left unread), on the fast path and the strict one.
    func testIntroOfferFlagIsABoolean() throws {
        let data = Data(Self.verifyLines[0].utf8)
        for fastPath in [true, false] {
            let read = FileImporter.read(InputFile(path: "verify.jsonl", data: data), fastPath: fastPath)
            XCTAssertEqual(read.appleRecords.first?.items.map(\.isInIntroOfferPeriod), [false, true, nil], "fastPath \(fastPath)")
            XCTAssertEqual(read.appleRecords.first?.items.first?.isTrialPeriod, false)
        }
        let bad = FileImporter.read(InputFile(path: "verify.jsonl", data: Data(Self.verifyLines[1].utf8)))
        XCTAssertEqual(
            bad.rejections.map(\.reason), [#"field 'receipt.in_app[0].is_in_intro_offer_period': expected a boolean, found "yes""#])
    }

    /// Every transaction a V1 notification lists carries its `notification_type`.
    func testNotificationV1TypeIsOnEveryListedTransaction() throws {
        let read = FileImporter.read(InputFile(path: "v1.json", data: Data(Self.notificationV1.utf8)))
        let items = try XCTUnwrap(read.appleRecords.first?.items)
        XCTAssertEqual(items.map(\.notificationType), ["DID_CHANGE_RENEWAL_STATUS", "DID_CHANGE_RENEWAL_STATUS"])
        XCTAssertEqual(items.map(\.notificationSubtype), [nil, nil])
    }

    /// A Get Transaction History page that leaves out its empty `signedTransactions` is an empty page,
    /// not an object of no known kind; so is a Get Notification History page without `notificationHistory`.
    func testHistoryPagesWithoutTheirListAreEmptyPages() {
        for body in [
            #"{"revision": "MS4xLjE=", "bundleId": "com.example.app", "appAppleId": 1234567890, "environment": "Production", "hasMore": false}"#,
            #"{"paginationToken": "57715481-805a-4283-8499-1c19b5d6b20a", "hasMore": false}"#,
        ] {
            let read = FileImporter.read(InputFile(path: "history.json", data: Data(body.utf8)))
            XCTAssertEqual(read.kind, .serverAPIResponse, body)
            XCTAssertEqual(read.status, .imported, body)
            XCTAssertEqual(read.appleRecords.map(\.items.count), [0], body)
            XCTAssertEqual(read.appleRecords.first?.source, .serverAPI, body)
        }
    }

    /// What the readers read is what `audit.sqlite` holds: the intro-offer flags as 0/1/NULL, the
    /// notification type on each transaction a notification listed.
    func testStoredValues() throws {
        let folder = TestPaths.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        TestPaths.write(Self.verifyLines[0] + "\n", to: folder + "/in/verify.jsonl")
        TestPaths.write(Self.notificationV1, to: folder + "/in/v1.json")
        let run = CLIRun(["run", folder + "/in", "--out", folder + "/out"])
        XCTAssertEqual(run.status, 0, run.err)
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute('''SELECT t.transaction_id, t.is_in_intro_offer_period, t.notification_type
                    FROM apple_transaction t ORDER BY t.record_id, t.position''').fetchall()))
                """, args: [folder + "/out/audit.sqlite"]) as! [[Any]]
        let expected: [[Any]] = [
            ["2000000400000001", NSNull(), "DID_CHANGE_RENEWAL_STATUS"], ["2000000400000002", NSNull(), "DID_CHANGE_RENEWAL_STATUS"],
            ["2000000400000001", 0, NSNull()], ["2000000400000002", 1, NSNull()], ["2000000400000003", NSNull(), NSNull()],
        ]
        XCTAssertEqual(rows.map { "\($0)" }, expected.map { "\($0)" })
    }
}
