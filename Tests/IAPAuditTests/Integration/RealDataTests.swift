import Foundation
import XCTest

@testable import IAPAudit

/// Runs the product on ../shared/real-data (public files nobody on this team wrote).
final class RealDataTests: XCTestCase {
    static let out = TestPaths.scratch("realdata")
    nonisolated(unsafe) static var result: AuditResult?

    func audit() throws -> AuditResult {
        if let result = RealDataTests.result { return result }
        let result = try AuditPipeline.run(AuditOptions(paths: [TestPaths.realData], outputDirectory: RealDataTests.out))
        RealDataTests.result = result
        return result
    }

    func file(_ relative: String) throws -> FileSummary {
        let path = TestPaths.realData(relative)
        return try XCTUnwrap(try audit().snapshot.files.first { URL(fileURLWithPath: $0.path).standardizedFileURL.path == path }, relative)
    }

    func testEveryVerifyReceiptResponseIsImportedAndTheMalformedOneRejected() throws {
        let files = try audit().snapshot.files
        let imported = files.filter { $0.kind == "verify_response" }
        XCTAssertEqual(imported.count, 15)
        XCTAssertTrue(imported.allSatisfy { $0.status == "imported" && $0.recordsIn == 1 && $0.recordsImported == 1 })
        let malformed = try file("crashoverride777__swifty-receipt-validator/ReceiptResponseInvalidFormat.json")
        XCTAssertEqual(malformed.status, "rejected")
        XCTAssertEqual(malformed.recordsRejected, 1)
        let rejection = try XCTUnwrap(try audit().snapshot.rejections.first)
        XCTAssertEqual(try audit().snapshot.rejections.count, 1)
        XCTAssertEqual(rejection.location.line, 4)
        XCTAssertEqual(rejection.reason, "invalid JSON: trailing comma at line 4, column 1")
    }

    func testExactReceiptTransactionsPerFile() throws {
        let expected: [String: [String]] = [
            "RevenueCat__purchases-ios/verifyReceiptSample1.txt": [
                "1000000692878476", "1000000692879214", "1000000692901513", "1000000692902182", "1000000692902990",
                "1000000692905419", "1000000692905971", "1000000692906727", "1000000696553650",
            ],
            // 1000000218147501 is listed twice in latest_receipt_info: kept as one transaction.
            "gabrielgarza__monza/response.json": ["1000000218147500", "1000000218147501", "1000000218147651"],
            // Numeric JSON ids keep their digits.
            "aporat__store-receipt-validator/inAppPurchaseResponse.json": [
                "1000000093384828", "1000000104232856", "1000000156014803", "1000000156455961",
            ],
            // iOS 6 flat receipt + latest_expired_receipt_info of the same purchase; status 21006.
            "nomad__venice/receipt_expired_cancelled.json": ["140000527258824"],
            // latest_receipt_info as a single object, not an array.
            "nov__itunes-receipt/autorenew_subscription.json": ["1000000052076747", "1000000055076747"],
            "nov__itunes-receipt/array_of_latest_receipt_info.json": [
                "1000000131413546", "1000000131413602", "1000000131414118", "1000000131415612", "1000000131415863",
            ],
            "aporat__store-receipt-validator/inAppPurchaseInvalidReceiptResponse.json": [],
            "nov__itunes-receipt/offline.json": [],
        ]
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rows = db.execute('''SELECT f.path, r.status, t.transaction_id FROM verify_response r JOIN source_file f USING (file_id)
                                     LEFT JOIN receipt_transaction t USING (response_id)''').fetchall()
                print(json.dumps(rows))
                """, args: [RealDataTests.out + "/audit.sqlite"]) as! [[Any]]
        _ = try audit()
        for (relative, ids) in expected {
            let path = TestPaths.realData(relative)
            let got = rows.filter { URL(fileURLWithPath: $0[0] as! String).standardizedFileURL.path == path }
                .compactMap { $0[2] as? String }.sorted()
            XCTAssertEqual(got, ids, relative)
        }
        let statuses = Dictionary(grouping: rows, by: { URL(fileURLWithPath: $0[0] as! String).lastPathComponent })
            .mapValues { ($0[0][1] as! NSNumber).intValue }
        XCTAssertEqual(statuses["offline.json"], 21005)
        XCTAssertEqual(statuses["sandboxed.json"], 21007)
        XCTAssertEqual(statuses["receipt_expired_cancelled.json"], 21006)
    }

    func testOtherKindsAreSkippedWithAReason() throws {
        XCTAssertEqual(try file("tikhop__TPInAppReceipt/receipt-production").note, "base64 PKCS#7 app receipt (not supported yet)")
        XCTAssertEqual(try file("gabrielgarza__monza/cancel.json").note, "App Store Server Notification V1 (not supported yet)")
        XCTAssertEqual(try file("namecare__app-store-server-library-rust/AppleRootCA-G3.cer").note, "DER certificate (not evidence)")
        XCTAssertEqual(try file("apple__app-store-server-library-swift/transactionInfo").status, "skipped")
        let files = try audit().snapshot.files
        XCTAssertEqual(files.count, 94)
        XCTAssertEqual(files.filter { $0.status == "skipped" }.count, 78)
        XCTAssertTrue(files.filter { $0.status == "skipped" }.allSatisfy { !$0.note.isEmpty && $0.recordsIn == 0 })
    }

    func testCancellationAndEnvironmentAreRead() throws {
        _ = try audit()
        let ledger = try AuditStore(path: RealDataTests.out + "/audit.sqlite").loadLedger()
        let cancellation = try XCTUnwrap(ledger.verifyResponses.first { $0.location.file.hasSuffix("cancellation_response.json") })
        XCTAssertEqual(cancellation.items.first { $0.transactionId == "1000000218147500" }?.cancellationDateMs, 1_466_127_848_000)
        XCTAssertTrue(cancellation.isSandbox)
        let sandboxed = try XCTUnwrap(ledger.verifyResponses.first { $0.location.file.hasSuffix("nov__itunes-receipt/sandboxed.json") })
        XCTAssertNil(sandboxed.environment)
        XCTAssertEqual(sandboxed.effectiveEnvironment, "Sandbox", "an un-retried 21007 is a sandbox answer")
    }

    func testCommandLineRunExitsZeroWithASummary() throws {
        let out = TestPaths.scratch()
        let run = CLIRun(["run", TestPaths.realData, "--out", out])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.out.contains("Records: 16 in = 15 imported + 1 rejected"), run.out)
        XCTAssertTrue(run.err.contains("ReceiptResponseInvalidFormat.json:4: error: invalid JSON: trailing comma"), run.err)
    }
}
