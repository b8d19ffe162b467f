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

/// Invented compact JWS transactions: revocation types, environments, family sharing, and the
/// errors a top-level transaction can raise.
final class SignedTransactionFixtureTests: XCTestCase {
    private func read(_ payload: [String: Any], checker: StubSignatureChecker = StubSignatureChecker()) throws -> AppleRecord {
        try SignedRecordReader.read(
            jws: JWSFixture.make(payload), at: SourceLocation(file: "jws.txt", line: 5), requestId: nil, receivedAtMs: nil,
            checker: checker)
    }

    func testEveryMappedField() throws {
        let checker = StubSignatureChecker()
        let payload = JWSFixture.transaction(
            "2000000700", ["appAccountToken": "11111111-2222-3333-4444-555555555555", "offerType": 1, "offerDiscountType": "FREE_TRIAL"])
        let text = JWSFixture.make(payload)
        let r = try SignedRecordReader.read(
            jws: text, at: SourceLocation(file: "jws.txt", line: 5), requestId: nil, receivedAtMs: nil, checker: checker)
        XCTAssertEqual(r.location, SourceLocation(file: "jws.txt", line: 5))
        XCTAssertEqual(r.source, .signedTransaction)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.rawJSON, text)
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.signedDateMs, 1_700_000_100_000)
        XCTAssertEqual(r.environment, "Production")
        XCTAssertEqual(r.bundleId, "com.example.app")
        var expected = AppleTransaction(transactionId: "2000000700", sections: ["signed_transaction"])
        expected.originalTransactionId = "2000000100000000"
        expected.webOrderLineItemId = "2000000055000000"
        expected.productId = "com.example.monthly"
        expected.quantity = 1
        expected.purchaseDateMs = 1_700_000_000_000
        expected.originalPurchaseDateMs = 1_699_000_000_000
        expected.expiresDateMs = 1_702_592_000_000
        expected.inAppOwnershipType = "PURCHASED"
        expected.type = "Auto-Renewable Subscription"
        expected.bundleId = "com.example.app"
        expected.environment = "Production"
        expected.priceMilliunits = 4990
        expected.currency = "USD"
        expected.storefront = "USA"
        expected.appAccountToken = "11111111-2222-3333-4444-555555555555"
        expected.transactionReason = "PURCHASE"
        expected.signedDateMs = 1_700_000_100_000
        expected.isInIntroOfferPeriod = true
        expected.isTrialPeriod = true
        expected.signature = .verified
        XCTAssertEqual(r.items, [expected])
        let parts = text.split(separator: ".")
        XCTAssertEqual(
            checker.calls,
            [
                StubSignatureChecker.Call(
                    signingInput: Data("\(parts[0]).\(parts[1])".utf8), signature: JWSFixture.signature, algorithm: "ES256", chainCount: 2,
                    atMs: 1_700_000_100_000)
            ])
    }

    func testRevocationTypes() throws {
        let cases: [(String, Int?)] = [("REFUND_FULL", nil), ("REFUND_PRORATED", 50000), ("FAMILY_REVOKE", nil), ("NEW_TYPE", 1)]
        for (type, percentage) in cases {
            var changes: [String: Any] = ["revocationDate": 1_700_000_900_000, "revocationReason": 1, "revocationType": type]
            if let percentage { changes["revocationPercentage"] = percentage }
            let item = try XCTUnwrap(try read(JWSFixture.transaction("3", changes)).items.first)
            XCTAssertEqual(item.revocationType, type)
            XCTAssertEqual(item.revocationPercentage, percentage, type)
            XCTAssertEqual(item.cancellationDateMs, 1_700_000_900_000, type)
            XCTAssertEqual(item.cancellationReason, "1", type)
        }
    }

    func testEnvironments() throws {
        let cases = [
            ("Production", "Production", false), ("Sandbox", "Sandbox", true), ("Xcode", "Xcode", true),
            ("LocalTesting", "LocalTesting", true), ("sandbox", "Sandbox", true), ("Staging", "Staging", true),
        ]
        for (sent, expected, sandbox) in cases {
            let r = try read(JWSFixture.transaction("4", ["environment": sent]))
            XCTAssertEqual(r.environment, expected, sent)
            XCTAssertEqual(r.items.first?.environment, expected, sent)
            XCTAssertEqual(r.isSandbox, sandbox, sent)
        }
    }

    func testFamilySharedTransaction() throws {
        let r = try read(JWSFixture.transaction("5", ["inAppOwnershipType": "FAMILY_SHARED", "originalTransactionId": "6"]))
        XCTAssertEqual(r.items.first?.inAppOwnershipType, "FAMILY_SHARED")
        XCTAssertEqual(r.items.first?.originalTransactionId, "6")
    }

    func testIdsStayExactText() throws {
        let r = try read(JWSFixture.transaction("2000000999999999999", ["originalTransactionId": 9_007_199_254_740_993]))
        XCTAssertEqual(r.items.first?.transactionId, "2000000999999999999")
        XCTAssertEqual(r.items.first?.originalTransactionId, "9007199254740993")
    }

    func testUnknownFieldsAreIgnored() throws {
        let r = try read(JWSFixture.transaction("7", ["somethingNew": ["nested": true], "advancedCommerceInfo": ["items": []]]))
        XCTAssertEqual(r.items.map(\.transactionId), ["7"])
    }

    func testMissingTransactionIdFailsATopLevelTransaction() throws {
        let payload = JWSFixture.transaction("8", ["transactionId": NSNull()])
        XCTAssertThrowsError(try read(payload)) {
            XCTAssertEqual("\($0)", "\(IngestError.missingField("transactionId"))")
        }
        XCTAssertThrowsError(try read(["transactionId": "", "bundleId": "b"])) {
            XCTAssertEqual("\($0)", "missing required field 'transactionId'")
        }
    }

    func testDateOutsideTheValidRangeIsRejected() {
        XCTAssertThrowsError(try read(JWSFixture.transaction("9", ["expiresDate": -62_135_769_600_000]))) {
            XCTAssertEqual("\($0)", "field 'expiresDate': epoch milliseconds -62135769600000 outside 1900–2200")
        }
    }

    func testWrappedJWSKeepsRequestLink() throws {
        let r = try SignedRecordReader.read(
            jws: JWSFixture.make(JWSFixture.transaction("10")), at: SourceLocation(file: "log.jsonl", line: 12), requestId: "req-1",
            receivedAtMs: 1_700_000_500_000, checker: NoSignatureChecking())
        XCTAssertEqual(r.requestId, "req-1")
        XCTAssertEqual(r.receivedAtMs, 1_700_000_500_000)
        XCTAssertEqual(r.signature, .notChecked)
        XCTAssertEqual(r.items.first?.signature, .notChecked)
    }

    /// RFC 7515 §4.1.11: a header's `crit` names extensions the reader must understand; it understands none, so the
    /// JWS is invalid whatever the checker says (an otherwise sound signature to a configured anchor included).
    func testACritHeaderIsInvalidWhateverTheChecker() throws {
        for (crit, reason) in [
            (["exp"] as Any, "unsupported_crit:exp"), (["b64", 7] as Any, "unsupported_crit:b64,?"), ([] as Any, "unsupported_crit:?"),
        ] {
            let checker = StubSignatureChecker(status: .verified)
            var header = JWSFixture.header
            header["crit"] = crit
            let r = try SignedRecordReader.read(
                jws: JWSFixture.make(JWSFixture.transaction("2000000701"), header: header), at: SourceLocation(file: "jws.txt", line: 1),
                requestId: nil, receivedAtMs: nil, checker: checker)
            XCTAssertEqual(r.signature, .invalid(reason))
            XCTAssertEqual(r.items.first?.signature, .invalid(reason))
            XCTAssertEqual(checker.calls.count, 0)
        }
        let checker = StubSignatureChecker(status: .verified)
        let r = try read(JWSFixture.transaction("2000000702"), checker: checker)
        XCTAssertEqual(r.signature, .verified, "without crit the checker decides")
    }
}
