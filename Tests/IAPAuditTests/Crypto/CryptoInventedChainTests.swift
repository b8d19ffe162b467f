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

/// JWS and PKCS#7 signed at test time by throw-away P-256 chains (`OpenSSLFixtures`), one negative
/// case per reason.
final class CryptoInventedChainTests: XCTestCase {
    var fixtures: OpenSSLFixtures!
    /// The current time, read when used (test cases are created before their fixtures).
    var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
    static let dayMs: Int64 = 86_400_000

    override func setUpWithError() throws {
        fixtures = try OpenSSLFixtures(folder: TestPaths.scratch("crypto-fixtures"))
    }

    func verifier(_ chain: OpenSSLFixtures.Chain, checkAtMs: Int64? = nil) -> SignatureVerifier {
        SignatureVerifier(
            jwsAnchors: TrustAnchors(certificates: [chain.root]), receiptAnchors: TrustAnchors(certificates: [chain.root]),
            checkAtMs: checkAtMs)
    }

    /// A signed JWS for the chain, with `signedDate` and the chain as `x5c`.
    func sign(_ chain: OpenSSLFixtures.Chain, algorithm: String = "ES256", signedDateMs: Int64? = nil) throws -> TestJWS {
        let header: [String: Any] = ["alg": algorithm, "x5c": chain.x5c.map { $0.base64EncodedString() }]
        let payload: [String: Any] = ["transactionId": "2000000123456789", "signedDate": signedDateMs ?? nowMs]
        return try TestJWS(try fixtures.signJWS(header: header, payload: payload, by: chain))
    }

    func testGoodChainVerifies() throws {
        let chain = try fixtures.makeChain("good")
        let jws = try sign(chain)
        XCTAssertEqual(jws.check(verifier(chain)), .verified)
        XCTAssertEqual(jws.check(verifier(chain), atMs: nil), .verified)
        XCTAssertEqual(verifier(chain).checkChain(chain.x5c, atMs: nil), .verified)
        XCTAssertEqual(jws.check(SignatureVerifier(jwsAnchors: .none, receiptAnchors: .none)), .untrustedRoot)
    }

    func testAlteredPayloadIsBadSignature() throws {
        let chain = try fixtures.makeChain("altered")
        let jws = try sign(chain)
        let parts = String(decoding: jws.signingInput, as: UTF8.self).split(separator: ".")
        var payload = jws.payload
        payload["transactionId"] = "2000000999999999"
        let forged = TestJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        let status = verifier(chain).checkJWS(
            signingInput: Data("\(parts[0]).\(forged)".utf8), signature: jws.signature, algorithm: jws.algorithm,
            certificateChain: jws.x5c, atMs: nowMs)
        XCTAssertEqual(status, .invalid("bad_signature"))
    }

    func testLeafWithoutMarkerOIDIsRejected() throws {
        let chain = try fixtures.makeChain("noleafoid", leafOID: false)
        XCTAssertEqual(try sign(chain).check(verifier(chain)), .invalid("leaf_oid_missing"))
    }

    func testIntermediateWithoutMarkerOIDIsRejected() throws {
        let chain = try fixtures.makeChain("nointermediateoid", intermediateOID: false)
        XCTAssertEqual(try sign(chain).check(verifier(chain)), .invalid("intermediate_oid_missing"))
    }

    func testLeafExpiredAtSignedDate() throws {
        let chain = try fixtures.makeChain("expired", leafDays: 1)
        let jws = try sign(chain, signedDateMs: nowMs + 2 * Self.dayMs)
        XCTAssertEqual(jws.check(verifier(chain)), .invalid("certificate_expired"))
        XCTAssertEqual(jws.check(verifier(chain), atMs: nowMs), .verified)
    }

    func testCheckedBeforeValidityIsNotYetValid() throws {
        let chain = try fixtures.makeChain("early")
        let jws = try sign(chain, signedDateMs: nowMs - Self.dayMs)
        XCTAssertEqual(jws.check(verifier(chain)), .invalid("certificate_not_yet_valid"))
        XCTAssertEqual(jws.check(verifier(chain, checkAtMs: nowMs)), .verified, "checkAtMs overrides the signedDate")
    }

    func testUnsupportedAlgorithm() throws {
        let chain = try fixtures.makeChain("rs256")
        XCTAssertEqual(try sign(chain, algorithm: "RS256").check(verifier(chain)), .invalid("unsupported_alg:RS256"))
    }

    func testChainFromAnotherRootIsUntrusted() throws {
        let chain = try fixtures.makeChain("one")
        let other = try fixtures.makeChain("other")
        XCTAssertEqual(try sign(chain).check(verifier(other)), .untrustedRoot)
        let mixed = verifier(chain).checkChain([chain.leaf, other.intermediate, chain.root], atMs: nil)
        XCTAssertEqual(mixed, .untrustedRoot, "the leaf's issuer is missing: unable to get local issuer")
    }

    func testPKCS7VerifiesWithItsRootAndIsUntrustedWithout() throws {
        let chain = try fixtures.makeChain("receipt")
        let der = try fixtures.signPKCS7(Data("invented receipt payload".utf8), by: chain)
        XCTAssertEqual(verifier(chain).checkPKCS7(der: der, atMs: nowMs), .verified)
        XCTAssertEqual(verifier(chain).checkPKCS7(der: der, atMs: nil), .verified)
        XCTAssertEqual(SignatureVerifier(jwsAnchors: .none, receiptAnchors: .none).checkPKCS7(der: der, atMs: nowMs), .untrustedRoot)
        XCTAssertEqual(verifier(chain).checkPKCS7(der: der, atMs: nowMs - Self.dayMs), .invalid("certificate_not_yet_valid"))
    }

    func testPKCS7WithAlteredContentIsBadSignature() throws {
        let chain = try fixtures.makeChain("tampered")
        var der = try fixtures.signPKCS7(Data("invented receipt payload".utf8), by: chain)
        let range = try XCTUnwrap(der.range(of: Data("invented".utf8)))
        der[range.lowerBound] = UInt8(ascii: "I")
        XCTAssertEqual(verifier(chain).checkPKCS7(der: der, atMs: nowMs), .invalid("bad_signature"))
    }

    func testDetachedPKCS7IsRejected() throws {
        let chain = try fixtures.makeChain("detached")
        let der = try fixtures.signPKCS7(Data("invented receipt payload".utf8), by: chain, detached: true)
        XCTAssertEqual(verifier(chain).checkPKCS7(der: der, atMs: nowMs), .invalid("detached_content"))
    }

    func testConcurrentChecksAgree() throws {
        let chain = try fixtures.makeChain("concurrent")
        let jws = try sign(chain)
        let checker = verifier(chain)
        let results = ConcurrentStatuses()
        let (input, signature, x5c) = (jws.signingInput, jws.signature, chain.x5c)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            if index % 2 == 0 {
                results.append(
                    checker.checkJWS(signingInput: input, signature: signature, algorithm: "ES256", certificateChain: x5c, atMs: nil))
            } else {
                results.append(checker.checkChain(x5c, atMs: index % 4 == 1 ? nil : 0))
            }
        }
        XCTAssertEqual(results.values.filter { $0 == .verified }.count, 48)
        XCTAssertEqual(results.values.filter { $0 == .invalid("certificate_not_yet_valid") }.count, 16)
    }
}

/// A lock-guarded list for collecting results from concurrent work in a test.
final class ConcurrentStatuses: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SignatureStatus] = []
    func append(_ status: SignatureStatus) { lock.withLock { stored.append(status) } }
    var values: [SignatureStatus] { lock.withLock { stored } }
}

/// Apple's shape is exactly leaf → intermediate → root: a longer x5c is refused before anything else.
final class CryptoChainShapeTests: XCTestCase {
    func testAnX5cOfFourCertificatesIsRefused() throws {
        let folder = TestPaths.scratch()
        let fixtures = try OpenSSLFixtures(folder: folder)
        let chain = try fixtures.makeChain("shape")
        let header: [String: Any] = ["alg": "ES256", "x5c": (chain.x5c + [chain.root]).map { $0.base64EncodedString() }]
        let jws = try TestJWS(try fixtures.signJWS(header: header, payload: ["signedDate": 1], by: chain))
        let verifier = SignatureVerifier(jwsAnchors: TrustAnchors(certificates: [chain.root]), receiptAnchors: .none)
        XCTAssertEqual(jws.check(verifier), .invalid("x5c_length:4"))
    }
}
