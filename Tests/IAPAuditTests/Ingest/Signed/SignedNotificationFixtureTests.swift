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

/// Invented signed Notifications V2, one per money-changing type, with nested signed transactions
/// and renewal infos (fake signatures, stub checker).
final class SignedNotificationFixtureTests: XCTestCase {
    private let notificationDate: Int64 = 1_700_000_200_000
    private let transactionDate: Int64 = 1_700_000_100_000

    /// `{"signedPayload": JWS(payload)}` read as a Notification V2 body.
    private func read(_ payload: [String: Any], checker: StubSignatureChecker = StubSignatureChecker()) throws -> AppleRecord {
        let body: [String: Any] = ["signedPayload": JWSFixture.make(payload)]
        XCTAssertEqual(SignedRecordReader.kind(of: RecordFixture.object(body)), .notificationV2)
        return try SignedRecordReader.read(
            object: RecordFixture.object(body), at: SourceLocation(file: "notifications.jsonl", line: 3), requestId: nil, receivedAtMs: nil,
            raw: "{\"signedPayload\":\"…\"}", checker: checker)
    }

    func testRefundWithRevocationDate() throws {
        let checker = StubSignatureChecker()
        let transaction = JWSFixture.transaction(
            "2000000500", ["revocationDate": 1_700_000_150_000, "revocationReason": 0, "revocationType": "REFUND_FULL"])
        let r = try read(JWSFixture.notification("REFUND", transaction: transaction), checker: checker)
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.notification?.notificationType, "REFUND")
        XCTAssertEqual(r.notification?.notificationUUID, "uuid-refund")
        XCTAssertEqual(r.notification?.version, "2.0")
        XCTAssertEqual(r.signedDateMs, notificationDate)
        XCTAssertEqual(r.environment, "Production")
        XCTAssertEqual(r.bundleId, "com.example.app")
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.items.count, 1)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.transactionId, "2000000500")
        XCTAssertEqual(item.cancellationDateMs, 1_700_000_150_000)
        XCTAssertEqual(item.cancellationReason, "0")
        XCTAssertEqual(item.revocationType, "REFUND_FULL")
        XCTAssertEqual(item.sections, ["notification"])
        XCTAssertEqual(item.signature, .verified)
        XCTAssertEqual(item.priceMilliunits, 4990)
        XCTAssertEqual(checker.calls.map(\.atMs), [notificationDate, transactionDate], "each JWS at its own signedDate")
        XCTAssertEqual(checker.calls.map(\.chainCount), [2, 2])
    }

    func testRefundReversed() throws {
        let r = try read(JWSFixture.notification("REFUND_REVERSED", transaction: JWSFixture.transaction("2000000501")))
        XCTAssertEqual(r.notification?.notificationType, "REFUND_REVERSED")
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000501"])
        XCTAssertNil(r.items.first?.cancellationDateMs)
        XCTAssertEqual(r.signedDateMs, notificationDate)
    }

    func testRefundDeclined() throws {
        let r = try read(JWSFixture.notification("REFUND_DECLINED", transaction: JWSFixture.transaction("2000000502")))
        XCTAssertEqual(r.notification?.notificationType, "REFUND_DECLINED")
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000502"])
        XCTAssertNil(r.items.first?.cancellationDateMs)
    }

    func testRevokeOfAFamilySharedPurchase() throws {
        let transaction = JWSFixture.transaction(
            "2000000503",
            ["inAppOwnershipType": "FAMILY_SHARED", "revocationDate": 1_700_000_160_000, "revocationType": "FAMILY_REVOKE"])
        let r = try read(JWSFixture.notification("REVOKE", transaction: transaction))
        XCTAssertEqual(r.notification?.notificationType, "REVOKE")
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.inAppOwnershipType, "FAMILY_SHARED")
        XCTAssertEqual(item.revocationType, "FAMILY_REVOKE")
        XCTAssertEqual(item.cancellationDateMs, 1_700_000_160_000)
    }

    func testDidRenewWithRenewalInfo() throws {
        let checker = StubSignatureChecker()
        let renewal: [String: Any] = [
            "originalTransactionId": "2000000100000000", "productId": "com.example.monthly", "autoRenewProductId": "com.example.monthly",
            "autoRenewStatus": 1, "signedDate": 1_700_000_110_000, "environment": "Production", "renewalDate": 1_702_592_000_000,
        ]
        let transaction = JWSFixture.transaction("2000000504", ["transactionReason": "RENEWAL"])
        let r = try read(
            JWSFixture.notification("DID_RENEW", subtype: "BILLING_RECOVERY", transaction: transaction, renewal: renewal), checker: checker)
        XCTAssertEqual(r.notification?.notificationType, "DID_RENEW")
        XCTAssertEqual(r.notification?.subtype, "BILLING_RECOVERY")
        XCTAssertEqual(r.items.first?.transactionReason, "RENEWAL")
        XCTAssertEqual(r.pendingRenewals.count, 1)
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewStatus, 1)
        XCTAssertEqual(checker.calls.map(\.atMs), [notificationDate, transactionDate, 1_700_000_110_000])
    }

    func testOneTimeChargeOfAConsumable() throws {
        let transaction = JWSFixture.transaction(
            "2000000505",
            [
                "type": "Consumable", "productId": "com.example.coins", "expiresDate": NSNull(), "webOrderLineItemId": NSNull(),
                "originalTransactionId": "2000000505", "quantity": 3, "price": 2970,
            ])
        let r = try read(JWSFixture.notification("ONE_TIME_CHARGE", transaction: transaction))
        XCTAssertEqual(r.notification?.notificationType, "ONE_TIME_CHARGE")
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.type, "Consumable")
        XCTAssertEqual(item.quantity, 3)
        XCTAssertEqual(item.priceMilliunits, 2970)
        XCTAssertNil(item.expiresDateMs)
        XCTAssertNil(item.webOrderLineItemId)
    }

    func testExpiredWithFailedRenewalInfoSignature() throws {
        let renewal: [String: Any] = [
            "originalTransactionId": "2000000100000000", "productId": "com.example.monthly", "autoRenewStatus": 0,
            "expirationIntent": 1, "signedDate": 1_700_000_120_000, "environment": "Production",
        ]
        let checker = StubSignatureChecker(status: .verified, byAtMs: [1_700_000_120_000: .invalid("certificate_expired")])
        let r = try read(
            JWSFixture.notification("EXPIRED", subtype: "VOLUNTARY", transaction: JWSFixture.transaction("2000000506"), renewal: renewal),
            checker: checker)
        XCTAssertEqual(r.notification?.notificationType, "EXPIRED")
        XCTAssertEqual(r.notification?.subtype, "VOLUNTARY")
        XCTAssertEqual(r.pendingRenewals.first?.expirationIntent, 1)
        XCTAssertEqual(r.items.first?.signature, .verified)
        XCTAssertEqual(r.signature, .invalid("certificate_expired"), "combined with every nested JWS")
    }

    func testConsumptionRequest() throws {
        var payload = JWSFixture.notification("CONSUMPTION_REQUEST", transaction: JWSFixture.transaction("2000000507"))
        var data = payload["data"] as! [String: Any]
        data["consumptionRequestReason"] = "UNINTENDED_PURCHASE"
        data["status"] = 1
        payload["data"] = data
        let r = try read(payload)
        XCTAssertEqual(r.notification?.notificationType, "CONSUMPTION_REQUEST")
        XCTAssertEqual(r.notification?.status, 1)
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000507"])
    }

    func testNewNotificationTypeStillReads() throws {
        let r = try read(JWSFixture.notification("SOMETHING_APPLE_ADDS_LATER", subtype: "NEW", transaction: JWSFixture.transaction("1")))
        XCTAssertEqual(r.notification?.notificationType, "SOMETHING_APPLE_ADDS_LATER")
        XCTAssertEqual(r.items.count, 1)
    }

    func testNotificationAsCompactJWSLineAndAsDecodedJSON() throws {
        let payload = JWSFixture.notification(
            "REFUND", transaction: JWSFixture.transaction("2000000508", ["revocationDate": 1_700_000_150_000]))
        let checker = StubSignatureChecker(status: .untrustedRoot)
        let signed = try SignedRecordReader.read(
            jws: JWSFixture.make(payload), at: SourceLocation(file: "n.txt", line: 1), requestId: "req-9", receivedAtMs: 1_700_000_300_000,
            checker: checker)
        XCTAssertEqual(signed.requestId, "req-9")
        XCTAssertEqual(signed.receivedAtMs, 1_700_000_300_000)
        XCTAssertEqual(signed.signature, .untrustedRoot)
        XCTAssertEqual(signed.items.first?.cancellationDateMs, 1_700_000_150_000)

        let decodedChecker = StubSignatureChecker()
        let decoded = try SignedRecordReader.read(
            object: RecordFixture.object(payload), at: SourceLocation(file: "n.json", line: 1), requestId: nil, receivedAtMs: nil,
            raw: "{}",
            checker: decodedChecker)
        XCTAssertEqual(decoded.source, .notificationV2)
        XCTAssertEqual(decoded.signature, .notChecked, "decoded payload JSON; its nested JWS was verified")
        XCTAssertEqual(decoded.items.first?.signature, .verified)
        XCTAssertEqual(decodedChecker.calls.map(\.atMs), [transactionDate])
    }

    func testNotificationHistoryWithSignedPayloads() throws {
        let checker = StubSignatureChecker()
        let first = JWSFixture.notification("DID_RENEW", transaction: JWSFixture.transaction("2000000601"))
        let second = JWSFixture.notification("REFUND", transaction: JWSFixture.transaction("2000000602"), signedDate: 1_700_000_400_000)
        let body: [String: Any] = [
            "hasMore": false, "paginationToken": "t",
            "notificationHistory": [
                ["sendAttempts": [], "signedPayload": JWSFixture.make(first)],
                ["sendAttempts": [], "signedPayload": JWSFixture.make(second)],
                [
                    "sendAttempts": [],
                    "signedPayload": JWSFixture.make(["notificationType": "TEST", "data": ["signedTransactionInfo": "x"]]),
                ],
            ],
        ]
        let r = try SignedRecordReader.read(
            object: RecordFixture.object(body), at: SourceLocation(file: "h.json", line: 1), requestId: nil, receivedAtMs: nil, raw: "{}",
            checker: checker)
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000601", "2000000602"])
        XCTAssertEqual(r.items.map(\.sections), [["notification"], ["notification"]])
        XCTAssertEqual(r.notes, ["notificationHistory[2].signedPayload.data.signedTransactionInfo: not a compact JWS (\"x\")"])
        XCTAssertEqual(
            checker.calls.map(\.atMs), [notificationDate, transactionDate, 1_700_000_400_000, transactionDate, nil])
        XCTAssertEqual(r.signature, .verified)
    }

    func testTestNotificationStatusWithSignedPayload() throws {
        let payload: [String: Any] = [
            "notificationType": "TEST", "notificationUUID": "u-1", "signedDate": 1_700_000_700_000,
            "data": ["bundleId": "com.example.app", "environment": "Sandbox"],
        ]
        let body: [String: Any] = [
            "signedPayload": JWSFixture.make(payload), "sendAttempts": [["attemptDate": 1, "sendAttemptResult": "SUCCESS"]],
        ]
        let r = try SignedRecordReader.read(
            object: RecordFixture.object(body), at: SourceLocation(file: "t.json", line: 1), requestId: nil, receivedAtMs: nil, raw: "{}",
            checker: StubSignatureChecker())
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.notification?.notificationType, "TEST")
        XCTAssertEqual(r.notification?.notificationUUID, "u-1")
        XCTAssertEqual(r.signedDateMs, 1_700_000_700_000)
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "com.example.app")
        XCTAssertEqual(r.signature, .verified)
    }
}
