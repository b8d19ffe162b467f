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

/// App Store Server API responses and error bodies: Apple's samples (placeholders where the JWS
/// would be, read as notes) and invented pages with real compact JWS.
final class ServerAPIResponseReaderTests: XCTestCase {
    private let apple = "apple__app-store-server-library-swift/"

    private func read(_ o: [String: Any], checker: StubSignatureChecker = StubSignatureChecker()) throws -> AppleRecord {
        try SignedRecordReader.read(
            object: RecordFixture.object(o), at: SourceLocation(file: "api.jsonl", line: 2), requestId: nil, receivedAtMs: nil, raw: "{…}",
            checker: checker)
    }

    func testTransactionHistoryWithPlaceholders() throws {
        let r = try JWSFixture.readObject(apple + "transactionHistoryResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.signature, .notChecked)
        XCTAssertNil(r.errorMessage)
        XCTAssertNil(r.notification)
        XCTAssertEqual(
            r.notes,
            [
                "signedTransactions[0]: not a compact JWS (\"signed_transaction_value\")",
                "signedTransactions[1]: not a compact JWS (\"signed_transaction_value2\")",
            ])
    }

    func testMalformedEnvironmentIsKeptRaw() throws {
        let r = try JWSFixture.readObject(apple + "transactionHistoryResponseWithMalformedEnvironment.json")
        XCTAssertEqual(r.environment, "LocalTestingxxx")
        XCTAssertEqual(r.isSandbox, true, "anything but Production")
        XCTAssertEqual(r.notes.count, 2)
    }

    func testRefundHistory() throws {
        let r = try JWSFixture.readObject(apple + "getRefundHistoryResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertNil(r.environment)
        XCTAssertNil(r.bundleId)
        XCTAssertEqual(
            r.notes,
            [
                "signedTransactions[0]: not a compact JWS (\"signed_transaction_one\")",
                "signedTransactions[1]: not a compact JWS (\"signed_transaction_two\")",
            ])
    }

    func testNotificationHistory() throws {
        let r = try JWSFixture.readObject(apple + "getNotificationHistoryResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.items, [])
        XCTAssertNil(r.notification)
        XCTAssertEqual(
            r.notes,
            [
                "notificationHistory[0].signedPayload: not a compact JWS (\"signed_payload_one\")",
                "notificationHistory[1].signedPayload: not a compact JWS (\"signed_payload_two\")",
            ])
    }

    func testAllSubscriptionStatuses() throws {
        let r = try JWSFixture.readObject(apple + "getAllSubscriptionStatusesResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.environment, "LocalTesting")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.pendingRenewals, [])
        XCTAssertEqual(
            r.notes,
            [
                "data[0].lastTransactions[0].signedTransactionInfo: not a compact JWS (\"signed_transaction_one\")",
                "data[0].lastTransactions[0].signedRenewalInfo: not a compact JWS (\"signed_renewal_one\")",
                "data[0].lastTransactions[1].signedTransactionInfo: not a compact JWS (\"signed_transaction_two\")",
                "data[0].lastTransactions[1].signedRenewalInfo: not a compact JWS (\"signed_renewal_two\")",
                "data[1].lastTransactions[0].signedTransactionInfo: not a compact JWS (\"signed_transaction_three\")",
                "data[1].lastTransactions[0].signedRenewalInfo: not a compact JWS (\"signed_renewal_three\")",
            ])
    }

    func testSubscriptionStatusesWithoutSignedFields() throws {
        let r = try JWSFixture.readObject("aporat__store-receipt-validator/subscriptionStatusResponse.json")
        XCTAssertEqual(
            SignedRecordReader.kind(
                of: try JWSFixture.realObject("aporat__store-receipt-validator/subscriptionStatusResponse.json").object), .serverAPIResponse
        )
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "com.example.app")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, [])
        XCTAssertEqual(r.signature, .notChecked)
    }

    func testLookUpOrderIdInvalidKeepsStatusZero() throws {
        let r = try JWSFixture.readObject(apple + "lookupOrderIdResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(
            r.notes,
            [
                "signedTransactions[0]: not a compact JWS (\"signed_transaction_one\")",
                "signedTransactions[1]: not a compact JWS (\"signed_transaction_two\")",
                "status 1: invalid order id (Look Up Order ID)",
            ])
    }

    func testTransactionInfoResponse() throws {
        let r = try JWSFixture.readObject(apple + "transactionInfoResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, ["signedTransactionInfo: not a compact JWS (\"signed_transaction_info_value\")"])
    }

    func testTestNotificationStatus() throws {
        let (object, _) = try JWSFixture.realObject(apple + "getTestNotificationStatusResponse.json")
        XCTAssertEqual(SignedRecordReader.kind(of: object), .serverAPIResponse)
        let r = try JWSFixture.readObject(apple + "getTestNotificationStatusResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertNil(r.notification)
        XCTAssertEqual(r.notes, ["signedPayload: not a compact JWS (\"signed_payload\")"])
    }

    func testExtendRenewalDateResponse() throws {
        let (object, _) = try JWSFixture.realObject(apple + "extendSubscriptionRenewalDateResponse.json")
        XCTAssertEqual(SignedRecordReader.kind(of: object), .serverAPIResponse)
        let r = try JWSFixture.readObject(apple + "extendSubscriptionRenewalDateResponse.json")
        XCTAssertEqual(r.source, .serverAPI)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, [])
        let failed = try read(["originalTransactionId": "1", "webOrderLineItemId": "2", "success": false])
        XCTAssertEqual(failed.notes, ["success false: the renewal date was not extended (Extend a Subscription Renewal Date)"])
    }

    func testErrorBodies() throws {
        let cases: [(String, Int, String)] = [
            ("apiException.json", 5_000_000, "An unknown error occurred."),
            ("apiTooManyRequestsException.json", 4_290_000, "Rate limit exceeded."),
            ("apiUnknownError.json", 9_990_000, "Testing error."),
            ("invalidTransactionIdError.json", 4_000_006, "Invalid transaction id."),
            ("transactionIdNotFoundError.json", 4_040_010, "Transaction id not found."),
        ]
        for (file, code, message) in cases {
            let r = try JWSFixture.readObject(apple + file)
            XCTAssertEqual(r.source, .serverAPI, file)
            XCTAssertEqual(r.status, code, file)
            XCTAssertEqual(r.errorMessage, message, file)
            XCTAssertEqual(r.items, [], file)
            XCTAssertEqual(r.notes, [], file)
            XCTAssertEqual(r.signature, .notChecked, file)
        }
    }

    // MARK: Invented pages with real compact JWS

    func testHistoryPageChecksEachTransactionAtItsSignedDate() throws {
        let first = JWSFixture.transaction("2000000111", ["signedDate": 1_700_000_100_000])
        let second = JWSFixture.transaction(
            "2000000222", ["signedDate": 1_700_000_300_000, "environment": "Sandbox", "price": 990, "currency": "EUR"])
        let checker = StubSignatureChecker(status: .verified, byAtMs: [1_700_000_300_000: .untrustedRoot])
        let r = try read(
            [
                "revision": "r1", "hasMore": false, "bundleId": "com.example.app", "appAppleId": 1, "environment": "Production",
                "signedTransactions": [JWSFixture.make(first), "placeholder", JWSFixture.make(second), JWSFixture.make(first)],
            ], checker: checker)
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000111", "2000000222"], "de-duplicated by transactionId")
        XCTAssertEqual(r.items.map(\.sections), [["server_api"], ["server_api"]])
        XCTAssertEqual(r.items.map(\.signature), [.verified, .untrustedRoot])
        XCTAssertEqual(r.items[1].priceMilliunits, 990)
        XCTAssertEqual(r.items[1].currency, "EUR")
        XCTAssertEqual(r.items[1].environment, "Sandbox")
        XCTAssertEqual(r.environment, "Production", "the page's own environment")
        XCTAssertEqual(r.signature, .untrustedRoot, "worst nested status")
        XCTAssertEqual(r.notes, ["signedTransactions[1]: not a compact JWS (\"placeholder\")"])
        XCTAssertEqual(checker.calls.map(\.atMs), [1_700_000_100_000, 1_700_000_300_000, 1_700_000_100_000])
        XCTAssertEqual(checker.calls.map(\.chainCount), [2, 2, 2])
        XCTAssertEqual(checker.calls.map(\.algorithm), ["ES256", "ES256", "ES256"])
        XCTAssertEqual(checker.calls[0].signature, JWSFixture.signature)
    }

    func testNestedTransactionWithoutIdIsANote() throws {
        var broken = JWSFixture.transaction("1")
        broken["transactionId"] = nil
        let r = try read(["signedTransactionInfo": JWSFixture.make(broken)])
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, ["signedTransactionInfo: missing required field 'transactionId'"])
        XCTAssertEqual(r.signature, .notChecked, "nothing was checked")
    }

    func testTransactionInfoTakesEnvironmentFromTheTransaction() throws {
        let checker = StubSignatureChecker()
        let r = try read(
            ["signedTransactionInfo": JWSFixture.make(JWSFixture.transaction("77", ["environment": "Sandbox"]))], checker: checker)
        XCTAssertEqual(r.items.map(\.transactionId), ["77"])
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "com.example.app")
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(checker.calls.map(\.atMs), [1_700_000_100_000])
    }

    func testSubscriptionStatusesWithSignedTransactionAndRenewal() throws {
        let renewal: [String: Any] = [
            "originalTransactionId": "2000000100000000", "productId": "com.example.monthly", "autoRenewProductId": "com.example.yearly",
            "autoRenewStatus": 0, "expirationIntent": 1, "signedDate": 1_700_000_500_000, "environment": "Production",
        ]
        let checker = StubSignatureChecker(status: .verified, byAtMs: [1_700_000_500_000: .invalid("bad_signature")])
        let r = try read(
            [
                "environment": "Production", "bundleId": "com.example.app", "appAppleId": 1,
                "data": [
                    [
                        "subscriptionGroupIdentifier": "g",
                        "lastTransactions": [
                            [
                                "status": 2, "originalTransactionId": "2000000100000000",
                                "signedTransactionInfo": JWSFixture.make(JWSFixture.transaction("2000000333")),
                                "signedRenewalInfo": JWSFixture.make(renewal),
                            ]
                        ],
                    ]
                ],
            ], checker: checker)
        XCTAssertEqual(r.items.map(\.transactionId), ["2000000333"])
        XCTAssertEqual(r.pendingRenewals.count, 1)
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewProductId, "com.example.yearly")
        XCTAssertEqual(r.pendingRenewals.first?.autoRenewStatus, 0)
        XCTAssertEqual(r.signature, .invalid("bad_signature"), "a failed renewal info fails the record")
        XCTAssertEqual(r.items.first?.signature, .verified)
        XCTAssertEqual(checker.calls.map(\.atMs), [1_700_000_100_000, 1_700_000_500_000])
    }

    func testErrorCodeMustBeANumber() {
        XCTAssertThrowsError(try read(["errorCode": "often", "errorMessage": "x"])) {
            XCTAssertEqual("\($0)", "field 'errorCode': expected an integer, found \"often\"")
        }
    }
}
