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

/// Reading trust anchors from DER and PEM files, and the error for an unreadable one.
final class CryptoTrustAnchorsTests: XCTestCase {
    func testLoadsDERAndPEMFiles() throws {
        let anchors = try TrustAnchors.load(paths: [
            try TestPaths.realData("namecare__app-store-server-library-rust/AppleRootCA-G3.cer"),
            try TestPaths.realData("apple__app-store-server-library-java/testCA.pem"),
        ])
        XCTAssertEqual(anchors.certificates.count, 2)
        let der = try Data(contentsOf: URL(fileURLWithPath: try TestPaths.realData("apple__app-store-server-library-swift/testCA.der")))
        XCTAssertEqual(anchors.certificates[1], der, "the PEM and DER copies of the test CA are the same certificate")
    }

    func testLoadsEveryCertificateOfAPEMBundle() throws {
        let folder = TestPaths.scratch()
        let fixtures = try OpenSSLFixtures(folder: folder)
        let chain = try fixtures.makeChain("bundle")
        let bundle =
            try fixtures.read("bundle-root.pem") + Data("some text between blocks\n".utf8) + fixtures.read("bundle-intermediate.pem")
        try bundle.write(to: URL(fileURLWithPath: folder + "/bundle.pem"))
        let anchors = try TrustAnchors.load(paths: [folder + "/bundle.pem"])
        XCTAssertEqual(anchors.certificates, [chain.root, chain.intermediate])
    }

    func testUnreadableFilesThrowWithPathAndReason() throws {
        let notACertificate = try TestPaths.realData("IdeasOnCanvas__AppReceiptValidator/not_a_receipt")
        XCTAssertThrowsError(try TrustAnchors.load(paths: [notACertificate])) { error in
            XCTAssertEqual(
                error as? CryptoError, .unreadableCertificate(path: notACertificate, reason: "not a DER or PEM X.509 certificate"))
            XCTAssertEqual("\(error)", "cannot read certificate \(notACertificate): not a DER or PEM X.509 certificate")
        }
        let missing = TestPaths.scratch() + "/missing.cer"
        XCTAssertThrowsError(try TrustAnchors.load(paths: [missing])) { error in
            guard case .unreadableCertificate(let path, let reason) = error as? CryptoError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, missing)
            XCTAssertEqual(reason, "no such file")
        }
        let directory = TestPaths.scratch()
        XCTAssertThrowsError(try TrustAnchors.load(paths: [directory])) { error in
            XCTAssertEqual(error as? CryptoError, .unreadableCertificate(path: directory, reason: "a folder, not a certificate file"))
        }
        let folder = TestPaths.scratch()
        TestPaths.write("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n", to: folder + "/bad.pem")
        XCTAssertThrowsError(try TrustAnchors.load(paths: [folder + "/bad.pem"])) { error in
            XCTAssertEqual(
                error as? CryptoError, .unreadableCertificate(path: folder + "/bad.pem", reason: "no decodable PEM CERTIFICATE block"))
        }
    }

    func testNoneIsEmpty() {
        XCTAssertEqual(TrustAnchors.none.certificates, [])
        XCTAssertEqual(try TrustAnchors.load(paths: []), .none)
    }
}
