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

/// `--jws-root`, `--receipt-root`, `--signatures-at` and the config keys behind them, on real files.
final class SignatureOptionsTests: XCTestCase {
    private static var appleSigned: String {
        get throws { try TestPaths.realData("aporat__store-receipt-validator/test-notification-signed-payload.json") }
    }
    private static var mockSigned: String {
        get throws { try TestPaths.realData("apple__app-store-server-library-swift/testNotification") }
    }
    private static var rootG3: String {
        get throws { try TestPaths.realData("namecare__app-store-server-library-rust/AppleRootCA-G3.cer") }
    }
    private static var testCA: String { get throws { try TestPaths.realData("apple__app-store-server-library-swift/testCA.der") } }

    /// The signature of the one record the run imported, read from audit.sqlite.
    private func signature(_ arguments: [String]) throws -> (run: CLIRun, signature: String?) {
        let out = TestPaths.scratch()
        let run = CLIRun(["run"] + arguments + ["--out", out])
        guard run.status == 0 else { return (run, nil) }
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                print(json.dumps([r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT signature FROM apple_record")]))
                """, args: [out + "/audit.sqlite"]) as? [String]
        return (run, rows?.first)
    }

    func testAppleSignedNotificationVerifiesAtItsSignedDateAndIsExpiredToday() throws {
        try TestPaths.requireRealData()
        XCTAssertEqual(try signature([Self.appleSigned, "--jws-root", Self.rootG3]).signature, "verified")
        XCTAssertEqual(
            try signature([Self.appleSigned, "--jws-root", Self.rootG3, "--signatures-at", "now"]).signature, "invalid:certificate_expired")
        XCTAssertEqual(
            try signature([Self.appleSigned, "--jws-root", Self.rootG3, "--signatures-at", "2022-07-01T00:00:00Z"]).signature, "verified")
        XCTAssertEqual(try signature([Self.appleSigned, "--jws-root", Self.testCA]).signature, "untrusted_root")
    }

    func testMockSignedSampleVerifiesOnlyUnderTheTestCA() throws {
        try TestPaths.requireRealData()
        XCTAssertEqual(try signature([Self.mockSigned, "--jws-root", Self.testCA]).signature, "verified")
        let untrusted = try signature([Self.mockSigned, "--jws-root", Self.rootG3])
        XCTAssertEqual(untrusted.signature, "untrusted_root")
    }

    func testWithoutAnyAnchorEverySignedRecordIsUntrustedAndTheRunSaysSo() throws {
        try XCTSkipIf(
            FileManager.default.fileExists(atPath: SignatureSettings.defaultJWSAnchor), "Apple's root is installed in certs/ here")
        let result = try signature([Self.appleSigned])
        XCTAssertEqual(result.signature, "untrusted_root")
        XCTAssertTrue(result.run.err.contains("iap-audit: warning: no JWS trust anchor"), result.run.err)
    }

    func testConfigNamesAnchorsRelativeToItsFolder() throws {
        let dir = TestPaths.scratch()
        try FileManager.default.copyItem(atPath: Self.testCA, toPath: dir + "/anchor.der")
        TestPaths.write(#"{"jws_trust_anchors": ["anchor.der"], "signatures_checked_at": "signed_date"}"#, to: dir + "/config.json")
        XCTAssertEqual(try signature([Self.mockSigned, "--config", dir + "/config.json"]).signature, "verified")
    }

    func testBadValuesAreClearErrors() throws {
        let badTime = CLIRun(["run", try Self.appleSigned, "--signatures-at", "yesterday", "--out", TestPaths.scratch()])
        XCTAssertEqual(badTime.status, 64)
        XCTAssertTrue(badTime.err.hasPrefix("Error: --signatures-at: expected signed_date, now, or a time"), badTime.err)
        let missing = CLIRun(["run", try Self.appleSigned, "--jws-root", "/nonexistent/root.cer", "--out", TestPaths.scratch()])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.err, "iap-audit: /nonexistent/root.cer: error: cannot use as a trust anchor: no such file")
        let dir = TestPaths.scratch()
        TestPaths.write("not a certificate", to: dir + "/junk.cer")
        let junk = CLIRun(["run", try Self.appleSigned, "--jws-root", dir + "/junk.cer", "--out", TestPaths.scratch()])
        XCTAssertEqual(junk.status, 1)
        XCTAssertEqual(junk.err, "iap-audit: \(dir)/junk.cer: error: cannot use as a trust anchor: not a DER or PEM X.509 certificate")
        TestPaths.write(#"{"signatures_checked_at": 5}"#, to: dir + "/config.json")
        let config = CLIRun(["run", try Self.appleSigned, "--config", dir + "/config.json", "--out", TestPaths.scratch()])
        XCTAssertEqual(config.status, 1)
        XCTAssertTrue(config.err.contains("'signatures_checked_at' must be"), config.err)
    }
}
