import Foundation
import XCTest

@testable import IAPAuditCrypto
@testable import IAPAuditModel
@testable import IAPAuditSample

/// `ES256Signer`: deterministic ECDSA (RFC 6979, HMAC-SHA256) whose signatures the tool's own verifier
/// accepts.
final class ES256SignerTests: XCTestCase {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    /// RFC 6979 appendix A.2.5: P-256, SHA-256, messages "sample" and "test" (k, r and s as published).
    func testRFC6979Vectors() {
        let signer = ES256Signer(scalar: Self.hex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721"))
        let sample = signer.sign(digest: ES256Signer.sha256(Array("sample".utf8)))
        XCTAssertEqual(Self.hex(sample.k), "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60")
        XCTAssertEqual(Self.hex(sample.r), "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716")
        XCTAssertEqual(Self.hex(sample.s), "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8")
        let test = signer.sign(digest: ES256Signer.sha256(Array("test".utf8)))
        XCTAssertEqual(Self.hex(test.k), "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0")
        XCTAssertEqual(Self.hex(test.r), "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367")
        XCTAssertEqual(Self.hex(test.s), "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083")
    }

    /// The sample's test CA: a JWS signed by its leaf verifies with its root as the only anchor, and the
    /// same input signs to the same bytes.
    func testSampleCASignaturesVerifyAndRepeat() throws {
        let signer = try ES256Signer(privateKeyPEM: SampleCA.leafKey)
        let x5c = [SampleCA.leafCertificate, SampleCA.intermediateCertificate, SampleCA.rootCertificate].map(Self.der)
        let header = "{\"alg\":\"ES256\",\"x5c\":[" + x5c.map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",") + "]}"
        let payload = "{\"transactionId\":\"2000000400000001\",\"signedDate\":1791000000000,\"price\":990,\"currency\":\"USD\"}"
        let jws = signer.compactJWS(headerJSON: header, payloadJSON: payload)
        XCTAssertEqual(jws, signer.compactJWS(headerJSON: header, payloadJSON: payload), "deterministic")
        XCTAssertNotEqual(jws, signer.compactJWS(headerJSON: header, payloadJSON: payload.replacingOccurrences(of: "990", with: "991")))
        let parsed = try TestJWS(jws)
        let verifier = SignatureVerifier(
            jwsAnchors: TrustAnchors(certificates: [Self.der(SampleCA.rootCertificate)]), receiptAnchors: .none)
        XCTAssertEqual(parsed.check(verifier), .verified)
        // Another anchor: the chain is sound but not trusted; a changed payload fails the signature.
        let other = SignatureVerifier(jwsAnchors: .none, receiptAnchors: .none)
        XCTAssertEqual(parsed.check(other), .untrustedRoot)
        let parts = jws.split(separator: ".")
        let forged = try TestJWS(
            parts[0] + "." + ES256Signer.base64URL(Data(payload.replacingOccurrences(of: "990", with: "1").utf8)) + "." + parts[2])
        XCTAssertEqual(forged.check(verifier), .invalid("bad_signature"))
        XCTAssertThrowsError(try ES256Signer(privateKeyPEM: SampleCA.rootCertificate))
    }

    static func der(_ pem: String) -> Data {
        Data(base64Encoded: pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())!
    }
}
