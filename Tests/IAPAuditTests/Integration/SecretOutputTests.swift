import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// The app's shared secret is never stored nor shown, and receipts are stored but never shown: a grep over
/// audit.sqlite and every file of the unzipped audit.xlsx, after a run on the real Notification V1 bodies
/// that hold `password` and on crafted rejected lines holding a known secret and known receipts.
final class SecretOutputTests: XCTestCase {
    static let secret = "iap-audit-test-secret-7f3a9c"

    func testTheSharedSecretIsNowhereAndReceiptsOnlyInTheDatabase() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let real = [
            "aporat__store-receipt-validator/serverNotificationRequest.json", "aporat__store-receipt-validator/inAppPurchaseResponse.json",
            "imdhemy__appstore-iap/server-notification.json", "gabrielgarza__monza/cancel.json", "gabrielgarza__monza/renewal.json",
            "gabrielgarza__monza/did_change_renewal_pref.json", "gabrielgarza__monza/initial_buy.json",
            "gabrielgarza__monza/renewal_with_unified_receipt.json",
        ]
        for (i, path) in real.enumerated() {
            try FileManager.default.copyItem(
                atPath: try TestPaths.realData(path), toPath: "\(input)/\(i)-\(URL(fileURLWithPath: path).lastPathComponent)")
        }
        // Known receipts: base64 of bytes no reader accepts, so their lines are rejected and shown on the sheet.
        var generator = SplitMix(seed: 7)
        let receipt = Data((0..<600).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).base64EncodedString()
        let receiptLine = Data([0x30, 0x82, 0x01, 0x00] + (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            .base64EncodedString()
        TestPaths.write(
            #"{"request_id": "r1", "received_at": "yesterday", "receipt_data": "\#(receipt)", "password": "\#(Self.secret)"}"#,
            to: input + "/verify.jsonl")
        TestPaths.write(receiptLine + "\n", to: input + "/receipt.b64")
        // A whole document rejected (no transaction id) with the secret in it.
        let document = try String(
            contentsOfFile: TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/errors/notification-v1-item-without-transaction-id.json",
            encoding: .utf8)
        TestPaths.write(
            document.replacingOccurrences(of: "{\n", with: "{\n  \"password\": \"\(Self.secret)\",\n", options: .anchored),
            to: input + "/v1.json")

        let run = CLIRun(["run", input, "--out", out])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("\(input)/verify.jsonl:1: error: field 'received_at'"), run.err)
        XCTAssertTrue(run.err.contains("\(input)/receipt.b64:1: error: receipt DER"), run.err)
        XCTAssertTrue(run.err.contains("\(input)/v1.json:1: error: missing required field"), run.err)

        let database = try Data(contentsOf: URL(fileURLWithPath: out + "/audit.sqlite"))
        let workbook = try Self.unzipped(out + "/audit.xlsx")
        XCTAssertGreaterThan(workbook.count, 10)
        // The real bodies' receipt (a verifyReceipt document stored whole) and the crafted ones.
        let realReceipt = "MILFMwYJKoZIhvcNAQcCoILFJDCCxSACAQExCzAJBgUrDgMCGgUAMIK05AYJKoZIhvcNAQcBoIK01"
        for text in [Self.secret, "dummy_shared_secret"] {
            XCTAssertNil(database.range(of: Data(text.utf8)), "\(text) in audit.sqlite")
            for (name, bytes) in workbook { XCTAssertNil(bytes.range(of: Data(text.utf8)), "\(text) in audit.xlsx \(name)") }
        }
        for text in [receipt, receiptLine, realReceipt] {
            XCTAssertNotNil(database.range(of: Data(text.prefix(3000).utf8)), "receipt kept in audit.sqlite: \(text.prefix(20))")
            for (name, bytes) in workbook {
                XCTAssertNil(bytes.range(of: Data(text.prefix(40).utf8)), "receipt in audit.xlsx \(name): \(text.prefix(20))")
            }
        }
        // Every `password` left in either output has the placeholder for its value.
        let pattern = try NSRegularExpression(pattern: #"(?i)&quot;password&quot;\s*:\s*&quot;([^&]*)&quot;|"password"\s*:\s*"([^"]*)""#)
        var values: [String] = []
        for bytes in [database] + workbook.values {
            let text = String(decoding: bytes, as: UTF8.self)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let range = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
                values.append(String(text[Range(range, in: text)!]))
            }
        }
        XCTAssertGreaterThanOrEqual(values.count, 8, "the real bodies' and the crafted passwords, stored")
        XCTAssertEqual(Set(values), ["[redacted]"])
        // The Rejected sheet names each receipt by its size and hash instead.
        let sheets = workbook.filter { $0.key.hasPrefix("xl/worksheets/") }.values.map { String(decoding: $0, as: UTF8.self) }.joined()
        for text in [receipt, receiptLine] {
            let hash = SwiftSHA256.hex(Array(text.utf8))
            XCTAssertTrue(sheets.contains("[receipt: \(CountText.grouped(Int64(text.count))) bytes of base64, SHA-256 \(hash)]"), hash)
        }
    }

    /// Every file of the .xlsx (a zip), by name, unzipped with Python's zipfile.
    static func unzipped(_ path: String) throws -> [String: Data] {
        let files =
            try PythonReader.run(
                """
                import base64, json, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                print(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist()}))
                """, args: [path]) as! [String: String]
        return files.compactMapValues { Data(base64Encoded: $0) }
    }
}

/// A small deterministic generator (SplitMix64), so the crafted receipts are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
