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

/// JWS from public repositories (read from `../shared/real-data`): one genuinely Apple-signed
/// notification, Apple's library samples signed by its throw-away test CA, and Xcode's StoreKit JWS. Each test reads the
/// corpus through `TestPaths.realData`, which throws `XCTSkip` (one line naming it) when `../shared` is absent.
final class CryptoRealJWSTests: XCTestCase {
    static let appleRootG3 = "namecare__app-store-server-library-rust/AppleRootCA-G3.cer"
    static let testCA = "apple__app-store-server-library-swift/testCA.der"

    func anchors(_ files: String...) throws -> TrustAnchors {
        try TrustAnchors.load(paths: files.map { try TestPaths.realData($0) })
    }

    func verifier(jws files: String..., checkAtMs: Int64? = nil) throws -> SignatureVerifier {
        SignatureVerifier(
            jwsAnchors: try TrustAnchors.load(paths: files.map { try TestPaths.realData($0) }), receiptAnchors: .none,
            checkAtMs: checkAtMs)
    }

    func jws(_ file: String) throws -> TestJWS { try TestJWS(path: try TestPaths.realData(file)) }

    var appleNotification: TestJWS {
        get throws { try jws("aporat__store-receipt-validator/test-notification-signed-payload.json") }
    }

    func testAppleSignedNotificationVerifiesAtItsSignedDate() throws {
        let notification = try appleNotification
        XCTAssertEqual(notification.signedDateMs, 1_662_122_492_884)
        XCTAssertEqual(notification.check(try verifier(jws: Self.appleRootG3)), .verified)
    }

    func testAppleSignedNotificationHasExpiredAsOfNow() throws {
        try TestPaths.requireRealData()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertEqual(try appleNotification.check(try verifier(jws: Self.appleRootG3, checkAtMs: now)), .invalid("certificate_expired"))
        XCTAssertEqual(try appleNotification.check(try verifier(jws: Self.appleRootG3), atMs: now), .invalid("certificate_expired"))
    }

    func testAppleSignedNotificationIsUntrustedWithOnlyTheTestCA() throws {
        try TestPaths.requireRealData()
        XCTAssertEqual(try appleNotification.check(try verifier(jws: Self.testCA)), .untrustedRoot)
        XCTAssertEqual(try appleNotification.check(try verifier()), .untrustedRoot)
    }

    func testAppleSignedNotificationWithAlteredPayloadIsBadSignature() throws {
        let notification = try appleNotification
        var input = notification.signingInput
        input[input.count - 2] ^= 0x01
        let status = try verifier(jws: Self.appleRootG3).checkJWS(
            signingInput: input, signature: notification.signature, algorithm: "ES256", certificateChain: notification.x5c,
            atMs: notification.signedDateMs)
        XCTAssertEqual(status, .invalid("bad_signature"))
    }

    func testMockSignedSamplesVerifyOnlyWithTheTestCA() throws {
        let withTestCA = try verifier(jws: Self.testCA)
        let withApple = try verifier(jws: Self.appleRootG3)
        for file in ["transactionInfo", "renewalInfo", "testNotification"] {
            let sample = try jws("apple__app-store-server-library-swift/" + file)
            XCTAssertNotNil(sample.signedDateMs, file)
            XCTAssertEqual(sample.x5c?.count, 3, file)
            XCTAssertEqual(sample.check(withTestCA), .verified, file)
            XCTAssertEqual(sample.check(withApple), .untrustedRoot, file)
        }
    }

    func testMissingX5CHeaderClaimIsMissingX5C() throws {
        let sample = try jws("apple__app-store-server-library-swift/missingX5CHeaderClaim")
        XCTAssertNil(sample.x5c)
        XCTAssertEqual(sample.check(try verifier(jws: Self.testCA)), .invalid("missing_x5c"))
        let empty = try verifier(jws: Self.testCA).checkJWS(
            signingInput: sample.signingInput, signature: sample.signature, algorithm: "ES256", certificateChain: [], atMs: nil)
        XCTAssertEqual(empty, .invalid("missing_x5c"))
    }

    func testJavaTestChainPassesAndTheInvalidOIDIntermediateIsRejected() throws {
        let folder = "apple__app-store-server-library-java/"
        let leaf = try anchors(folder + "testLeaf.pem").certificates
        let intermediate = try anchors(folder + "testIntermediate.pem").certificates
        let invalidIntermediate = try anchors(folder + "testInvalidOIDIntermediate.pem").certificates
        let root = try anchors(folder + "testCA.pem").certificates
        let checker = SignatureVerifier(jwsAnchors: TrustAnchors(certificates: root), receiptAnchors: .none)
        let at: Int64 = 1_700_000_000_000  // 2023-11-14, inside every certificate's validity
        XCTAssertEqual(checker.checkChain(leaf + intermediate + root, atMs: at), .verified)
        XCTAssertEqual(checker.checkChain(leaf + invalidIntermediate + root, atMs: at), .invalid("intermediate_oid_missing"))
        XCTAssertEqual(checker.checkChain(leaf + intermediate, atMs: at), .verified, "the root may be left out of x5c")
        XCTAssertEqual(
            checker.checkChain([Data([0x30, 0x03, 0x02, 0x01, 0x01])] + intermediate, atMs: at), .invalid("malformed_certificate"))
        XCTAssertEqual(checker.checkChain(nil, atMs: at), .invalid("missing_x5c"))
    }

    func testXcodeSignedTransactionIsUntrustedUnlessItsCertificateIsAnAnchor() throws {
        let sample = try jws("apple__app-store-server-library-swift/xcode-signed-transaction")
        XCTAssertEqual(sample.x5c?.count, 1)
        XCTAssertEqual(sample.check(try verifier(jws: Self.appleRootG3, Self.testCA)), .untrustedRoot)
        let xcode = SignatureVerifier(jwsAnchors: TrustAnchors(certificates: sample.x5c ?? []), receiptAnchors: .none)
        XCTAssertEqual(sample.check(xcode), .verified, "the leaf is itself an anchor: no marker OIDs required")
    }

    func testUnsupportedAlgorithmAndSignatureEncoding() throws {
        let sample = try jws("apple__app-store-server-library-swift/transactionInfo")
        let checker = try verifier(jws: Self.testCA)
        func check(signature: Data? = nil, algorithm: String?) -> SignatureStatus {
            checker.checkJWS(
                signingInput: sample.signingInput, signature: signature ?? sample.signature, algorithm: algorithm,
                certificateChain: sample.x5c, atMs: sample.signedDateMs)
        }
        XCTAssertEqual(check(algorithm: "RS256"), .invalid("unsupported_alg:RS256"))
        XCTAssertEqual(check(algorithm: nil), .invalid("missing_alg"))
        XCTAssertEqual(check(signature: sample.signature.dropLast(), algorithm: "ES256"), .invalid("bad_signature_encoding"))
        XCTAssertEqual(check(signature: Data(count: 64), algorithm: "ES256"), .invalid("bad_signature"))
    }
}
