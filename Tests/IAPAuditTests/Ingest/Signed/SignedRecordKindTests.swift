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

/// `SignedRecordReader.kind(of:)`: which JSON objects the signed-format reader takes, and which it leaves alone.
final class SignedRecordKindTests: XCTestCase {
    private func kind(_ o: [String: Any]) -> SourceKind? { SignedRecordReader.kind(of: RecordFixture.object(o)) }
    private func kind(_ o: JSONRef) -> SourceKind? { SignedRecordReader.kind(of: o) }

    func testRealFilesByKind() throws {
        try TestPaths.requireRealData()
        let apple = "apple__app-store-server-library-swift/"
        let expected: [(String, SourceKind)] = [
            (apple + "signedTransaction.json", .signedTransaction),
            (apple + "signedTransactionWithRevocation.json", .signedTransaction),
            (apple + "signedRenewalInfo.json", .signedTransaction),
            (apple + "appTransaction.json", .signedTransaction),
            (apple + "signedNotification.json", .notificationV2),
            (apple + "signedConsumptionRequestNotification.json", .notificationV2),
            (apple + "signedSummaryNotification.json", .notificationV2),
            (apple + "signedExternalPurchaseTokenNotification.json", .notificationV2),
            (apple + "transactionHistoryResponse.json", .serverAPIResponse),
            (apple + "transactionHistoryResponseWithMalformedEnvironment.json", .serverAPIResponse),
            (apple + "getRefundHistoryResponse.json", .serverAPIResponse),
            (apple + "getNotificationHistoryResponse.json", .serverAPIResponse),
            (apple + "getAllSubscriptionStatusesResponse.json", .serverAPIResponse),
            (apple + "lookupOrderIdResponse.json", .serverAPIResponse),
            (apple + "transactionInfoResponse.json", .serverAPIResponse),
            (apple + "getTestNotificationStatusResponse.json", .serverAPIResponse),
            (apple + "extendSubscriptionRenewalDateResponse.json", .serverAPIResponse),
            (apple + "apiException.json", .serverAPIResponse),
            (apple + "apiTooManyRequestsException.json", .serverAPIResponse),
            (apple + "apiUnknownError.json", .serverAPIResponse),
            (apple + "invalidTransactionIdError.json", .serverAPIResponse),
            (apple + "transactionIdNotFoundError.json", .serverAPIResponse),
            ("aporat__store-receipt-validator/test-notification-signed-payload.json", .notificationV2),
            ("aporat__store-receipt-validator/serverNotificationRequest.json", .notificationV1),
            ("aporat__store-receipt-validator/subscriptionStatusResponse.json", .serverAPIResponse),
            ("gabrielgarza__monza/cancel.json", .notificationV1),
            ("gabrielgarza__monza/initial_buy.json", .notificationV1),
            ("gabrielgarza__monza/renewal.json", .notificationV1),
            ("gabrielgarza__monza/renewal_with_unified_receipt.json", .notificationV1),
            ("gabrielgarza__monza/did_change_renewal_pref.json", .notificationV1),
            ("imdhemy__appstore-iap/server-notification.json", .notificationV1),
        ]
        for (file, kind) in expected {
            XCTAssertEqual(self.kind(try JWSFixture.realObject(file).object), kind, file)
        }
    }

    func testVerifyReceiptBodiesAreNotSigned() throws {
        try TestPaths.requireRealData()
        for file in [
            "aporat__store-receipt-validator/inAppPurchaseResponse.json",
            "aporat__store-receipt-validator/inAppPurchaseInvalidReceiptResponse.json", "gabrielgarza__monza/response.json",
            "gabrielgarza__monza/cancellation_response.json", "nov__itunes-receipt/autorenew_subscription.json",
        ] {
            XCTAssertNil(kind(try JWSFixture.realObject(file).object), file)
        }
        XCTAssertNil(kind(["status": 0, "latest_receipt_info": [], "environment": "Sandbox"]))
        XCTAssertNil(kind(["status": 21007]))
    }

    func testServerLogAndClientRecordsAreNotSigned() {
        XCTAssertNil(kind(["request_id": "r", "signedPayload": "eyJ…"]))
        XCTAssertNil(kind(["request_id": "r", "transactionId": "1", "productId": "p"]))
        XCTAssertNil(kind(["request_id": "r", "errorCode": 4_040_010]))
        XCTAssertNil(kind(["state": "purchased", "transactionId": "1", "productId": "p"]))
        XCTAssertNil(kind(["transaction_id": "1", "transactionId": "1", "productId": "p"]))
        XCTAssertNil(kind(["errors": [["status": "401"]]]))
        XCTAssertNil(kind([:]))
    }

    func testDecodedPayloadsNeedAFieldThatGoesWithTheTellingOne() {
        XCTAssertEqual(kind(["transactionId": "1", "productId": "p"]), .signedTransaction)
        XCTAssertNil(kind(["transactionId": "1"]))
        XCTAssertEqual(kind(["autoRenewStatus": 1, "originalTransactionId": "1"]), .signedTransaction)
        XCTAssertNil(kind(["autoRenewStatus": 1]))
        XCTAssertEqual(kind(["receiptType": "Production", "bundleId": "b"]), .signedTransaction)
        XCTAssertEqual(kind(["appTransactionId": "7", "applicationVersion": "1"]), .signedTransaction)
        XCTAssertNil(kind(["appTransactionId": "7"]))
        XCTAssertEqual(kind(["notificationType": "TEST"]), .notificationV2)
        XCTAssertEqual(kind(["signedPayload": "x"]), .notificationV2)
        XCTAssertEqual(kind(["signedPayload": "x", "sendAttempts": []]), .serverAPIResponse)
        XCTAssertEqual(kind(["notification_type": "CANCEL"]), .notificationV1)
    }
}
