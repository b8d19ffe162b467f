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

/// Apple's decoded payload samples (app-store-server-library-swift `resources/models`), read as
/// unsigned JSON: `signature` is `not_checked` and no signature is checked.
final class SignedDecodedPayloadTests: XCTestCase {
    private let apple = "apple__app-store-server-library-swift/"

    func testSignedTransaction() throws {
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readObject(apple + "signedTransaction.json", checker: checker)
        XCTAssertEqual(r.source, .signedTransaction)
        XCTAssertEqual(r.signature, .notChecked)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertNil(r.receiptType)
        XCTAssertNil(r.isRetryable)
        XCTAssertEqual(r.signedDateMs, 1_698_148_900_000)
        XCTAssertEqual(r.location, SourceLocation(file: apple + "signedTransaction.json", line: 1))
        XCTAssertEqual(r.rawJSON, try JWSFixture.realText(apple + "signedTransaction.json"))
        XCTAssertEqual(r.notes, [])
        XCTAssertNil(r.notification)
        XCTAssertEqual(r.items.count, 1)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.transactionId, "23456")
        XCTAssertEqual(item.originalTransactionId, "12345")
        XCTAssertEqual(item.webOrderLineItemId, "34343")
        XCTAssertEqual(item.productId, "com.example.product")
        XCTAssertEqual(item.quantity, 1)
        XCTAssertEqual(item.purchaseDateMs, 1_698_148_900_000)
        XCTAssertEqual(item.originalPurchaseDateMs, 1_698_148_800_000)
        XCTAssertEqual(item.expiresDateMs, 1_698_149_000_000)
        XCTAssertEqual(item.cancellationDateMs, 1_698_148_950_000)
        XCTAssertEqual(item.cancellationReason, "1")
        XCTAssertNil(item.revocationType)
        XCTAssertNil(item.revocationPercentage)
        XCTAssertEqual(item.inAppOwnershipType, "PURCHASED")
        XCTAssertEqual(item.type, "Auto-Renewable Subscription")
        XCTAssertEqual(item.bundleId, "com.example")
        XCTAssertEqual(item.environment, "LocalTesting")
        XCTAssertEqual(item.priceMilliunits, 10990)
        XCTAssertEqual(item.currency, "USD")
        XCTAssertEqual(item.storefront, "USA")
        XCTAssertEqual(item.appAccountToken, "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        XCTAssertEqual(item.transactionReason, "PURCHASE")
        XCTAssertEqual(item.signedDateMs, 1_698_148_900_000)
        XCTAssertEqual(item.isInIntroOfferPeriod, true, "offerType 1")
        XCTAssertEqual(item.isTrialPeriod, false, "PAY_AS_YOU_GO")
        XCTAssertEqual(item.signature, .notChecked)
        XCTAssertEqual(item.sections, ["signed_transaction"])
        XCTAssertEqual(checker.calls, [])
    }

    func testSignedTransactionWithRevocation() throws {
        let r = try JWSFixture.readObject(apple + "signedTransactionWithRevocation.json")
        XCTAssertEqual(r.source, .signedTransaction)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(r.items.count, 1)
        XCTAssertEqual(item.transactionId, "23456")
        XCTAssertEqual(item.revocationType, "REFUND_PRORATED")
        XCTAssertEqual(item.revocationPercentage, 50000)
        XCTAssertEqual(item.cancellationDateMs, 1_698_148_950_000)
        XCTAssertEqual(item.cancellationReason, "1")
        XCTAssertEqual(item.priceMilliunits, 10990)
    }

    func testSignedRenewalInfo() throws {
        let r = try JWSFixture.readObject(apple + "signedRenewalInfo.json")
        XCTAssertEqual(r.source, .signedRenewalInfo)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertNil(r.bundleId)
        XCTAssertEqual(r.signedDateMs, 1_698_148_800_000)
        XCTAssertEqual(r.signature, .notChecked)
        XCTAssertEqual(r.pendingRenewals.count, 1)
        let p = try XCTUnwrap(r.pendingRenewals.first)
        XCTAssertEqual(p.originalTransactionId, "12345")
        XCTAssertEqual(p.productId, "com.example.product")
        XCTAssertEqual(p.autoRenewProductId, "com.example.product.2")
        XCTAssertEqual(p.autoRenewStatus, 1)
        XCTAssertEqual(p.expirationIntent, 1)
        XCTAssertEqual(p.isInBillingRetryPeriod, true)
        XCTAssertEqual(p.gracePeriodExpiresDateMs, 1_698_148_900_000)
    }

    func testAppTransaction() throws {
        let r = try JWSFixture.readObject(apple + "appTransaction.json")
        XCTAssertEqual(r.source, .appTransaction)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.pendingRenewals, [])
        XCTAssertEqual(r.environment, "LocalTesting", "receiptType")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.signedDateMs, 1_698_148_900_000, "receiptCreationDate")
        XCTAssertEqual(r.signature, .notChecked)
    }

    func testSubscribedNotificationWithPlaceholders() throws {
        let r = try JWSFixture.readObject(apple + "signedNotification.json")
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.signature, .notChecked)
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.signedDateMs, 1_698_148_900_000)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.pendingRenewals, [])
        var expected = NotificationInfo(
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY",
            version: "2.0")
        expected.status = 1
        XCTAssertEqual(r.notification, expected)
        XCTAssertEqual(
            r.notes,
            [
                "data.signedTransactionInfo: not a compact JWS (\"signed_transaction_info_value\")",
                "data.signedRenewalInfo: not a compact JWS (\"signed_renewal_info_value\")",
            ])
    }

    func testConsumptionRequestNotification() throws {
        let r = try JWSFixture.readObject(apple + "signedConsumptionRequestNotification.json")
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.notification?.notificationType, "CONSUMPTION_REQUEST")
        XCTAssertNil(r.notification?.subtype)
        XCTAssertEqual(r.notification?.status, 1)
        XCTAssertEqual(r.notification?.notificationUUID, "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes.count, 2)
    }

    func testSummaryNotificationHasNoTransaction() throws {
        let r = try JWSFixture.readObject(apple + "signedSummaryNotification.json")
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.notification?.notificationType, "RENEWAL_EXTENSION")
        XCTAssertEqual(r.notification?.subtype, "SUMMARY")
        XCTAssertEqual(r.notification?.hasSummary, true)
        XCTAssertNil(r.notification?.status)
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.signedDateMs, 1_698_148_900_000)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, [])
    }

    func testExternalPurchaseTokenNotification() throws {
        let r = try JWSFixture.readObject(apple + "signedExternalPurchaseTokenNotification.json")
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.notification?.notificationType, "EXTERNAL_PURCHASE_TOKEN")
        XCTAssertEqual(r.notification?.subtype, "UNREPORTED")
        XCTAssertEqual(r.notification?.hasSummary, false)
        XCTAssertEqual(r.environment, "Production", "externalPurchaseId without the SANDBOX prefix")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, [])
    }

    func testDecodedTransactionWithoutTransactionIdIsNotRecognized() {
        let o: [String: Any] = ["productId": "p", "bundleId": "b", "environment": "Sandbox"]
        XCTAssertNil(SignedRecordReader.kind(of: RecordFixture.object(o)))
        XCTAssertThrowsError(
            try SignedRecordReader.read(
                object: RecordFixture.object(o), at: SourceLocation(file: "x.json", line: 1), requestId: nil, receivedAtMs: nil, raw: "{}",
                checker: StubSignatureChecker())
        ) {
            XCTAssertEqual(
                "\($0)",
                "not an App Store signed transaction, Server API response or server notification (keys: bundleId, environment, productId)")
        }
    }

    func testDecodedTransactionWithBadDateIsRejected() {
        let o = JWSFixture.transaction("1", ["purchaseDate": "yesterday"])
        XCTAssertThrowsError(
            try SignedRecordReader.read(
                object: RecordFixture.object(o), at: SourceLocation(file: "x.json", line: 3), requestId: "r1", receivedAtMs: nil, raw: "{}",
                checker: StubSignatureChecker())
        ) {
            XCTAssertEqual("\($0)", "field 'purchaseDate': expected an integer, found \"yesterday\"")
        }
    }
}
