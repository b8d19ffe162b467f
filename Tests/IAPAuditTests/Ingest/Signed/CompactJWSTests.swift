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

/// `CompactJWS.parse` on Apple's signed samples and on text that is not a compact JWS.
final class CompactJWSTests: XCTestCase {
    private let apple = "apple__app-store-server-library-swift/"

    func testAppleTestChainTransactionInfo() throws {
        let text = try JWSFixture.realText(apple + "transactionInfo")
        let jws = try CompactJWS.parse(text)
        XCTAssertEqual(jws.algorithm, "ES256")
        XCTAssertNil(jws.keyId)
        XCTAssertEqual(jws.header.string("typ"), "JWT")
        XCTAssertEqual(jws.certificateChain?.count, 3)
        XCTAssertEqual(jws.certificateChain?.allSatisfy { $0.first == 0x30 }, true, "DER SEQUENCE")
        XCTAssertEqual(jws.signature.count, 64)
        XCTAssertEqual(jws.payload.string("environment"), "Sandbox")
        XCTAssertEqual(jws.payload.string("bundleId"), "com.example")
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        XCTAssertEqual(jws.signingInput, Data("\(parts[0]).\(parts[1])".utf8))
    }

    func testXcodeSignedTransactionHeader() throws {
        let jws = try CompactJWS.parse(try JWSFixture.realText(apple + "xcode-signed-transaction"))
        XCTAssertEqual(jws.keyId, "Apple_Xcode_Key")
        XCTAssertEqual(jws.algorithm, "ES256")
        XCTAssertEqual(jws.certificateChain?.count, 1)
        XCTAssertEqual(jws.payload.string("transactionId"), "0")
    }

    func testMissingX5CHeaderGivesNilChain() throws {
        let jws = try CompactJWS.parse(try JWSFixture.realText(apple + "missingX5CHeaderClaim"))
        XCTAssertNil(jws.certificateChain)
        XCTAssertNotNil(jws.header["x5cwrong"])
        XCTAssertEqual(jws.payload.string("notificationType"), "TEST")
    }

    func testSurroundingWhitespaceIsTrimmed() throws {
        let text = JWSFixture.make(["transactionId": "1"])
        let jws = try CompactJWS.parse("  \n" + text + "\r\n")
        XCTAssertEqual(jws.payload.string("transactionId"), "1")
        XCTAssertEqual(jws.signature, JWSFixture.signature)
        XCTAssertEqual(jws.certificateChain, [Data([0x30, 0x01, 0x01]), Data([0x30, 0x01, 0x02])])
    }

    func testPlaceholderIsNotACompactJWS() {
        XCTAssertThrowsError(try CompactJWS.parse("signed_transaction_value")) {
            XCTAssertEqual("\($0)", "not a compact JWS (\"signed_transaction_value\")")
        }
    }

    func testWrongPartCount() {
        XCTAssertThrowsError(try CompactJWS.parse("eyJhIjoxfQ.eyJiIjoyfQ")) {
            XCTAssertEqual("\($0)", "not a compact JWS: 2 dot-separated parts, expected 3")
        }
    }

    func testHeaderMustBeAJSONObject() {
        let array = JWSFixture.base64URL(Data("[1]".utf8))
        let payload = JWSFixture.base64URL(Data("{}".utf8))
        XCTAssertThrowsError(try CompactJWS.parse("\(array).\(payload).AAAA")) {
            XCTAssertTrue("\($0)".hasPrefix("not a compact JWS: the header is not a JSON object"), "\($0)")
        }
        XCTAssertThrowsError(try CompactJWS.parse("e$J.\(payload).AAAA")) {
            XCTAssertEqual("\($0)", "not a compact JWS: the header is not base64url")
        }
    }

    func testPayloadMustBeAJSONObject() {
        let header = JWSFixture.base64URL(JWSFixture.json(JWSFixture.header))
        let text = JWSFixture.base64URL(Data("\"text\"".utf8))
        XCTAssertThrowsError(try CompactJWS.parse("\(header).\(text).AAAA")) {
            XCTAssertTrue("\($0)".hasPrefix("not a compact JWS: the payload is not a JSON object"), "\($0)")
        }
    }

    func testBadSignatureEncoding() {
        let text = JWSFixture.make(["a": 1]).split(separator: ".").prefix(2).joined(separator: ".") + ".not+base64url"
        XCTAssertThrowsError(try CompactJWS.parse(text)) {
            XCTAssertEqual("\($0)", "not a compact JWS: the signature is not base64url")
        }
    }

    func testBadX5CEntry() {
        let text = JWSFixture.make(["a": 1], header: ["alg": "ES256", "x5c": ["AQID", "%%%"]])
        XCTAssertThrowsError(try CompactJWS.parse(text)) {
            XCTAssertEqual("\($0)", "compact JWS header: x5c[1] is not a base64 certificate")
        }
    }
}
