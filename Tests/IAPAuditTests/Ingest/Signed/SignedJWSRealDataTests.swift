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

/// Real compact JWS: Apple's library test-CA samples, Xcode StoreKit testing JWS, and the one
/// genuinely Apple-signed TEST notification. The stub checker records what the reader asked.
final class SignedJWSRealDataTests: XCTestCase {
    private let apple = "apple__app-store-server-library-swift/"

    func testXcodeSignedTransaction() throws {
        let checker = StubSignatureChecker(status: .untrustedRoot)
        let r = try JWSFixture.readJWS(apple + "xcode-signed-transaction", checker: checker)
        XCTAssertEqual(r.source, .signedTransaction)
        XCTAssertEqual(r.signature, .untrustedRoot)
        XCTAssertEqual(r.environment, "Xcode")
        XCTAssertEqual(r.bundleId, "com.example.naturelab.backyardbirds.example")
        XCTAssertEqual(r.signedDateMs, 1_697_679_936_056, "1697679936056.485 truncated")
        XCTAssertEqual(
            r.rawJSON, try JWSFixture.realText(apple + "xcode-signed-transaction").trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(r.items.count, 1)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.transactionId, "0")
        XCTAssertEqual(item.originalTransactionId, "0")
        XCTAssertEqual(item.webOrderLineItemId, "0")
        XCTAssertEqual(item.productId, "pass.premium")
        XCTAssertEqual(item.quantity, 1)
        XCTAssertEqual(item.purchaseDateMs, 1_697_679_936_049, "1697679936049.7297 truncated")
        XCTAssertEqual(item.originalPurchaseDateMs, 1_697_679_936_049)
        XCTAssertEqual(item.expiresDateMs, 1_700_358_336_049)
        XCTAssertEqual(item.type, "Auto-Renewable Subscription")
        XCTAssertEqual(item.inAppOwnershipType, "PURCHASED")
        XCTAssertEqual(item.transactionReason, "PURCHASE")
        XCTAssertEqual(item.storefront, "USA")
        XCTAssertEqual(item.environment, "Xcode")
        XCTAssertNil(item.priceMilliunits)
        XCTAssertNil(item.cancellationDateMs)
        XCTAssertEqual(item.isInIntroOfferPeriod, true)
        XCTAssertNil(item.isTrialPeriod, "offerType without offerDiscountType")
        XCTAssertEqual(item.signature, .untrustedRoot)
        XCTAssertEqual(item.sections, ["signed_transaction"])
        XCTAssertEqual(checker.calls.count, 1)
        XCTAssertEqual(checker.calls.first?.atMs, 1_697_679_936_056)
        XCTAssertEqual(checker.calls.first?.chainCount, 1)
        XCTAssertEqual(checker.calls.first?.algorithm, "ES256")
        XCTAssertEqual(checker.calls.first?.signature.count, 64)
    }

    func testXcodeSignedRenewalInfo() throws {
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readJWS(apple + "xcode-signed-renewal-info", checker: checker)
        XCTAssertEqual(r.source, .signedRenewalInfo)
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.environment, "Xcode")
        XCTAssertEqual(r.signedDateMs, 1_697_679_936_711)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.pendingRenewals.count, 1)
        let p = try XCTUnwrap(r.pendingRenewals.first)
        XCTAssertEqual(p.originalTransactionId, "0")
        XCTAssertEqual(p.productId, "pass.premium")
        XCTAssertEqual(p.autoRenewProductId, "pass.premium")
        XCTAssertEqual(p.autoRenewStatus, 1)
        XCTAssertNil(p.expirationIntent)
        XCTAssertEqual(checker.calls.map(\.atMs), [1_697_679_936_711])
        XCTAssertEqual(checker.calls.map(\.chainCount), [1])
    }

    func testXcodeSignedAppTransaction() throws {
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readJWS(apple + "xcode-signed-app-transaction", checker: checker)
        XCTAssertEqual(r.source, .appTransaction)
        XCTAssertEqual(r.environment, "Xcode")
        XCTAssertEqual(r.bundleId, "com.example.naturelab.backyardbirds.example")
        XCTAssertEqual(r.signedDateMs, 1_697_680_122_257, "receiptCreationDate")
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(checker.calls.map(\.atMs), [1_697_680_122_257])
    }

    func testAppleLibraryTestNotification() throws {
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readJWS(apple + "testNotification", checker: checker)
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.notification?.notificationType, "TEST")
        XCTAssertEqual(r.notification?.notificationUUID, "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        XCTAssertNil(r.notification?.subtype)
        XCTAssertNil(r.notification?.version)
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertEqual(r.signedDateMs, 1_681_314_324_000)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.notes, [])
        XCTAssertEqual(checker.calls.map(\.atMs), [1_681_314_324_000])
        XCTAssertEqual(checker.calls.map(\.chainCount), [3])
    }

    func testMissingX5CHeaderPassesNoChain() throws {
        let checker = StubSignatureChecker(status: .invalid("missing_x5c"))
        let r = try JWSFixture.readJWS(apple + "missingX5CHeaderClaim", checker: checker)
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.signature, .invalid("missing_x5c"))
        XCTAssertEqual(r.notification?.notificationType, "TEST")
        XCTAssertEqual(r.bundleId, "com.example")
        XCTAssertNil(r.environment)
        XCTAssertNil(r.signedDateMs)
        XCTAssertEqual(checker.calls.count, 1)
        XCTAssertNil(checker.calls.first?.chainCount)
        XCTAssertNil(checker.calls.first?.atMs, "no signedDate: checked as of now")
    }

    /// Apple's test-CA `transactionInfo` and `renewalInfo` payloads name no purchase: imported with their
    /// signature checked at their signedDate, no transaction, and a note with the keys.
    func testTestCAPayloadsWithoutTellingFieldsAreImportedWithANote() throws {
        let cases = [
            ("transactionInfo", "bundleId, environment, signedDate"),
            ("renewalInfo", "environment, signedDate"),
        ]
        for (file, keys) in cases {
            let checker = StubSignatureChecker()
            let r = try JWSFixture.readJWS(apple + file, checker: checker)
            XCTAssertEqual(r.source, .signedTransaction, file)
            XCTAssertEqual(r.items, [], file)
            XCTAssertEqual(r.environment, "Sandbox", file)
            XCTAssertEqual(r.signedDateMs, 1_672_956_154_000, file)
            XCTAssertEqual(r.notes, ["payload names no transaction, renewal, app transaction or notification (keys: \(keys))"], file)
            XCTAssertEqual(checker.calls.map(\.atMs), [1_672_956_154_000], file)
            XCTAssertEqual(checker.calls.map(\.chainCount), [3], file)
        }
    }

    func testRealAppleSignedTestNotification() throws {
        let file = "aporat__store-receipt-validator/test-notification-signed-payload.json"
        let (object, raw) = try JWSFixture.realObject(file)
        XCTAssertEqual(SignedRecordReader.kind(of: object), .notificationV2)
        let checker = StubSignatureChecker()
        let r = try JWSFixture.readObject(file, checker: checker)
        XCTAssertEqual(r.source, .notificationV2)
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.rawJSON, raw)
        XCTAssertEqual(
            r.notification,
            NotificationInfo(
                notificationUUID: "5e09dcfc-205e-4ea1-9883-96676f394992", notificationType: "TEST", subtype: nil, version: "2.0"))
        XCTAssertEqual(r.environment, "Sandbox")
        XCTAssertEqual(r.bundleId, "com.Abilities")
        XCTAssertEqual(r.signedDateMs, 1_662_122_492_884)
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(checker.calls.map(\.atMs), [1_662_122_492_884])
        XCTAssertEqual(checker.calls.map(\.chainCount), [3])
    }

    func testPlaceholderSignedPayloadIsRejected() {
        XCTAssertThrowsError(
            try SignedRecordReader.read(
                object: RecordFixture.object(["signedPayload": "signed_payload"]), at: SourceLocation(file: "n.json", line: 1),
                requestId: nil,
                receivedAtMs: nil, raw: "", checker: StubSignatureChecker())
        ) {
            XCTAssertEqual("\($0)", "field 'signedPayload': not a compact JWS (\"signed_payload\")")
        }
    }

    func testPlaceholderJWSLineIsRejected() {
        XCTAssertThrowsError(
            try SignedRecordReader.read(
                jws: "signed_transaction_value\n", at: SourceLocation(file: "t.txt", line: 4), requestId: nil, receivedAtMs: nil,
                checker: StubSignatureChecker())
        ) {
            XCTAssertEqual("\($0)", "not a compact JWS (\"signed_transaction_value\")")
        }
    }
}
