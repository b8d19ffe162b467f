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

/// App Store Server Notifications V1 bodies (unsigned): unified_receipt and the older top-level forms.
final class NotificationV1ReaderTests: XCTestCase {
    private func read(_ file: String) throws -> AppleRecord {
        let (object, _) = try JWSFixture.realObject(file)
        XCTAssertEqual(SignedRecordReader.kind(of: object), .notificationV1, file)
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readObject(file, checker: checker)
        XCTAssertEqual(r.source, .notificationV1, file)
        XCTAssertEqual(r.signature, .notChecked, file)
        XCTAssertEqual(r.status, 0, file)
        XCTAssertNil(r.notification?.notificationUUID, file)
        XCTAssertNil(r.notification?.subtype, file)
        XCTAssertEqual(checker.calls, [], file)
        return r
    }

    func testDidRenewWithUnifiedReceipt() throws {
        let r = try read("aporat__store-receipt-validator/serverNotificationRequest.json")
        XCTAssertEqual(r.notification?.notificationType, "DID_RENEW")
        XCTAssertEqual(r.environment, "Production", "PROD")
        XCTAssertEqual(r.receiptEnvironment, "Production", "unified_receipt.environment")
        XCTAssertEqual(r.bundleId, "my.app")
        XCTAssertEqual(r.items.count, 1)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.transactionId, "100000000000001")
        XCTAssertEqual(item.originalTransactionId, "100000000000000")
        XCTAssertEqual(item.productId, "my.app.subscription.monthly")
        XCTAssertEqual(item.purchaseDateMs, 1_745_044_952_000)
        XCTAssertEqual(item.expiresDateMs, 1_747_636_952_000)
        XCTAssertEqual(item.webOrderLineItemId, "100000000000002")
        XCTAssertEqual(item.sections, ["latest_receipt_info"])
        XCTAssertEqual(r.pendingRenewals.count, 1)
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewStatus, 1)
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewProductId, "my.app.subscription.monthly")
        XCTAssertEqual(r.notes, [])
    }

    /// A body whose `environment` and `unified_receipt.environment` disagree (one Production, the other
    /// not) is a record whose environment signals disagree (semantics.md rule 24): both are stored, and the
    /// run's environment_conflict warning counts it (the findings: the scenario case
    /// `environment-conflict-notification-v1-body-and-receipt-disagree`).
    func testBodyAndReceiptEnvironmentsThatDisagreeAreAConflict() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let name = "notifications.jsonl"
        try FileManager.default.copyItem(
            atPath: FixtureCaseTests.casesFolder + "/environment-conflict-notification-v1-body-and-receipt-disagree/" + name,
            toPath: input + "/" + name)
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out, asOfMs: 1_791_590_400_000))
        XCTAssertEqual(
            result.warnings.filter { $0.code == .environmentConflict }.map(\.message),
            [
                "\(input)/\(name): 2 Apple record(s) whose environment signals disagree (Production with a sandbox receipt_type, "
                    + "a notification V1 whose environment and unified_receipt.environment differ, or subscription periods of an hour "
                    + "or less labelled Production or naming no environment): read as sandbox (no production payment, no dropped order)"
            ])
        let stored =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([[e, r] for e, r in db.execute("SELECT environment, receipt_environment FROM apple_record ORDER BY line")]))
                """, args: [out + "/audit.sqlite"]) as! [[String]]
        XCTAssertEqual(stored, [["Production", "Sandbox"], ["Sandbox", "Production"], ["Production", "Production"]])
    }

    func testCancelWithCancellationDate() throws {
        let r = try read("gabrielgarza__monza/cancel.json")
        XCTAssertEqual(r.notification?.notificationType, "CANCEL")
        XCTAssertEqual(r.environment, "Production", "PROD")
        XCTAssertNil(r.receiptEnvironment, "no unified_receipt")
        XCTAssertEqual(r.bundleId, "com.bundle.id", "the item's bid")
        XCTAssertEqual(r.items.count, 1)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.transactionId, "720000240377671")
        XCTAssertEqual(item.originalTransactionId, "720000238499386")
        XCTAssertEqual(item.productId, "com.PremiumYearly")
        XCTAssertEqual(item.purchaseDateMs, 1_520_376_249_000)
        XCTAssertEqual(item.expiresDateMs, 1_551_912_249_000)
        XCTAssertEqual(item.cancellationDateMs, 1_521_757_701_000)
        XCTAssertEqual(item.cancellationReason, "0")
        XCTAssertEqual(item.webOrderLineItemId, "720000051999737")
        XCTAssertEqual(r.pendingRenewals, [])
        XCTAssertEqual(r.notes, [])
    }

    func testOlderCancelAppliesTopLevelCancellationDate() throws {
        let body: [String: Any] = [
            "notification_type": "CANCEL", "environment": "PROD", "web_order_line_item_id": "5",
            "cancellation_date_ms": "1521757701000",
            "latest_expired_receipt_info": [
                "transaction_id": "9", "original_transaction_id": "8", "product_id": "p", "web_order_line_item_id": "5",
                "purchase_date_ms": "1520376249000", "bid": "com.old",
            ],
        ]
        let r = try SignedRecordReader.read(
            object: RecordFixture.object(body), at: SourceLocation(file: "v1.jsonl", line: 7), requestId: nil, receivedAtMs: nil, raw: "{}",
            checker: StubSignatureChecker())
        XCTAssertEqual(r.items.map(\.transactionId), ["9"])
        XCTAssertEqual(r.items.first?.cancellationDateMs, 1_521_757_701_000)
        XCTAssertEqual(r.items.first?.sections, ["latest_expired_receipt_info"])
        XCTAssertEqual(r.environment, "Production")
        XCTAssertEqual(r.bundleId, "com.old", "bid of the older top-level latest_expired_receipt_info")
        let unmatched = try SignedRecordReader.read(
            object: RecordFixture.object(body.merging(["web_order_line_item_id": "6"]) { $1 }),
            at: SourceLocation(file: "v1.jsonl", line: 8),
            requestId: nil, receivedAtMs: nil, raw: "{}", checker: StubSignatureChecker())
        XCTAssertNil(unmatched.items.first?.cancellationDateMs)
        XCTAssertEqual(unmatched.notes, ["cancellation_date: no listed purchase to apply it to (web_order_line_item_id 6)"])
    }

    func testInitialBuyRenewalAndPreferenceChangeChain() throws {
        let initial = try read("gabrielgarza__monza/initial_buy.json")
        XCTAssertEqual(initial.notification?.notificationType, "INITIAL_BUY")
        XCTAssertEqual(initial.environment, "Sandbox")
        XCTAssertEqual(initial.bundleId, "co.bundle.id")
        XCTAssertEqual(initial.items.map(\.transactionId), ["1000000383185294"])
        XCTAssertEqual(initial.items.first?.productId, "product_id.annual")
        XCTAssertEqual(initial.items.first?.purchaseDateMs, 1_521_156_184_000)
        XCTAssertEqual(initial.items.first?.expiresDateMs, 1_521_159_784_000)

        let renewal = try read("gabrielgarza__monza/renewal.json")
        XCTAssertEqual(renewal.notification?.notificationType, "RENEWAL")
        XCTAssertEqual(renewal.items.map(\.transactionId), ["1000000383189543"])
        XCTAssertEqual(renewal.items.first?.originalTransactionId, "1000000383185294")
        XCTAssertEqual(renewal.items.first?.productId, "product_id.quarterly")
        XCTAssertEqual(renewal.items.first?.purchaseDateMs, 1_521_160_703_000)
        XCTAssertEqual(renewal.items.first?.expiresDateMs, 1_521_161_603_000)

        let change = try read("gabrielgarza__monza/did_change_renewal_pref.json")
        XCTAssertEqual(change.notification?.notificationType, "DID_CHANGE_RENEWAL_PREF")
        XCTAssertEqual(change.items.map(\.transactionId), ["1000000383196805"])
        XCTAssertEqual(change.items.first?.originalTransactionId, "1000000383185294")
    }

    func testRenewalWithUnifiedReceipt() throws {
        let r = try read("gabrielgarza__monza/renewal_with_unified_receipt.json")
        XCTAssertEqual(r.notification?.notificationType, "RENEWAL")
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "co.bundle.id")
        XCTAssertEqual(r.items.count, 22)
        XCTAssertEqual(r.items.first?.transactionId, "1000000707558300")
        XCTAssertEqual(r.items.first?.purchaseDateMs, 1_594_910_202_000)
        XCTAssertEqual(r.items.last?.transactionId, "1000000704619139")
        XCTAssertEqual(Set(r.items.compactMap(\.originalTransactionId)), ["1000000715982567"])
        XCTAssertEqual(r.pendingRenewals.count, 1)
        XCTAssertEqual(r.pendingRenewals.first?.originalTransactionId, "1000000715982567")
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewStatus, 1)
    }

    func testDidChangeRenewalStatusWithFiftyFourRows() throws {
        let r = try read("imdhemy__appstore-iap/server-notification.json")
        XCTAssertEqual(r.notification?.notificationType, "DID_CHANGE_RENEWAL_STATUS")
        XCTAssertEqual(r.environment, "Production")
        XCTAssertEqual(r.bundleId, "com.some.thing")
        XCTAssertEqual(r.items.count, 54)
        XCTAssertEqual(r.items.first?.transactionId, "1000000746095599")
        XCTAssertEqual(r.items.first?.expiresDateMs, 1_606_293_062_000)
        XCTAssertEqual(r.items.last?.transactionId, "1000000739321528")
        XCTAssertEqual(r.pendingRenewals.count, 1)
        let p = try XCTUnwrap(r.pendingRenewals.first)
        XCTAssertEqual(p.autoRenewStatus, 0)
        XCTAssertEqual(p.expirationIntent, 1)
        XCTAssertEqual(p.isInBillingRetryPeriod, false)
        XCTAssertEqual(p.originalTransactionId, "1000000723811158")
    }

    func testBadItemFieldNamesUnifiedReceipt() {
        let body: [String: Any] = [
            "notification_type": "DID_RENEW",
            "unified_receipt": ["status": 0, "latest_receipt_info": [["product_id": "p"]]],
        ]
        XCTAssertThrowsError(
            try SignedRecordReader.read(
                object: RecordFixture.object(body), at: SourceLocation(file: "v1.json", line: 1), requestId: nil, receivedAtMs: nil,
                raw: "{}",
                checker: StubSignatureChecker())
        ) {
            XCTAssertEqual("\($0)", "missing required field 'unified_receipt.latest_receipt_info[0].transaction_id'")
        }
    }
}
