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

/// Real PKCS#7 app receipts (read from `../shared/real-data`) against the legacy Apple Root CA.
final class CryptoReceiptTests: XCTestCase {
    var appleRoot: TrustAnchors {
        get throws { try TrustAnchors.load(paths: [try TestPaths.realData("tikhop__TPInAppReceipt/AppleIncRootCertificate.cer")]) }
    }

    var verifier: SignatureVerifier {
        get throws { SignatureVerifier(jwsAnchors: .none, receiptAnchors: try appleRoot) }
    }

    func receipt(_ file: String) throws -> Data {
        let text = try String(contentsOfFile: try TestPaths.realData(file), encoding: .utf8)
        return try XCTUnwrap(Data(base64Encoded: text, options: .ignoreUnknownCharacters), file)
    }

    /// The receipt's creation date (attribute type 12), milliseconds since 1970 UTC, found by its DER
    /// bytes: `SEQUENCE { INTEGER 12, INTEGER version, OCTET STRING { IA5String "yyyy-mm-ddThh:mm:ssZ" } }`.
    func creationDateMs(_ der: Data) throws -> Int64 {
        let bytes = [UInt8](der)
        let prefix: [UInt8] = [0x02, 0x01, 0x0C, 0x02, 0x01]
        let valueStart: [UInt8] = [0x04, 0x16, 0x16, 0x14]
        for index in 0..<(bytes.count - 30) where Array(bytes[index..<(index + 5)]) == prefix {
            let value = index + 6
            guard Array(bytes[value..<(value + 4)]) == valueStart else { continue }
            let text = String(decoding: bytes[(value + 4)..<(value + 24)], as: UTF8.self)
            let date = try XCTUnwrap(ISO8601DateFormatter().date(from: text), text)
            return Int64(date.timeIntervalSince1970 * 1000)
        }
        throw XCTSkip("no creation date found")
    }

    func testSHA1ReceiptVerifiesAtItsCreationDateAndHasExpiredNow() throws {
        let der = try receipt("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt")
        let created = try creationDateMs(der)
        XCTAssertEqual(created, 1_595_439_548_000)  // 2020-07-22T17:39:08Z; signed SHA1withRSA
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: created), .verified)
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: nil), .invalid("certificate_expired"))
    }

    func testProductionReceiptVerifiesAtItsCreationDateAndHasExpiredNow() throws {
        let der = try receipt("tikhop__TPInAppReceipt/receipt-production")
        let created = try creationDateMs(der)
        XCTAssertEqual(created, 1_708_709_236_000)  // 2024-02-23T17:27:16Z
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: created), .verified)
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: nil), .invalid("certificate_expired"))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let asOfNow = SignatureVerifier(jwsAnchors: .none, receiptAnchors: try appleRoot, checkAtMs: now)
        XCTAssertEqual(asOfNow.checkPKCS7(der: der, atMs: created), .invalid("certificate_expired"))
        // Its signing certificate was issued in September 2022.
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: 1_600_000_000_000), .invalid("certificate_not_yet_valid"))
    }

    func testReceiptIsUntrustedWithoutTheAppleRoot() throws {
        let der = try receipt("tikhop__TPInAppReceipt/receipt-production")
        let checker = SignatureVerifier(jwsAnchors: .none, receiptAnchors: .none)
        XCTAssertEqual(checker.checkPKCS7(der: der, atMs: try creationDateMs(der)), .untrustedRoot)
    }

    func testNotAReceiptIsMalformed() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try TestPaths.realData("IdeasOnCanvas__AppReceiptValidator/not_a_receipt")))
        XCTAssertEqual(try verifier.checkPKCS7(der: data, atMs: nil), .invalid("malformed_pkcs7"))
        XCTAssertEqual(try verifier.checkPKCS7(der: Data(), atMs: nil), .invalid("malformed_pkcs7"))
    }

    func testXcodeReceiptIsUntrusted() throws {
        let der = try receipt("apple__app-store-server-library-swift/xcode-app-receipt-with-transaction")
        XCTAssertEqual(try verifier.checkPKCS7(der: der, atMs: nil), .untrustedRoot)
    }
}
