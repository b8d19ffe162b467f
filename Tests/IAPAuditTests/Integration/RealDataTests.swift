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

/// Runs the product on ../shared/real-data (public files nobody on this team wrote).
final class RealDataTests: XCTestCase {
    static let out = TestPaths.scratch("realdata")
    nonisolated(unsafe) static var result: AuditResult?

    /// Apple Root CA - G3 for JWS, the Apple Inc. Root Certificate for receipts (both from ../shared/real-data).
    static var appleAnchors: AuditConfig {
        get throws {
            var config = AuditConfig()
            config.jwsTrustAnchors = [try TestPaths.realData("namecare__app-store-server-library-rust/AppleRootCA-G3.cer")]
            config.receiptTrustAnchors = [try TestPaths.realData("tikhop__TPInAppReceipt/AppleIncRootCertificate.cer")]
            return config
        }
    }

    func audit() throws -> AuditResult {
        if let result = RealDataTests.result { return result }
        let result = try AuditPipeline.run(
            AuditOptions(paths: [try TestPaths.realData], outputDirectory: RealDataTests.out, config: try RealDataTests.appleAnchors))
        RealDataTests.result = result
        return result
    }

    func file(_ relative: String) throws -> FileSummary {
        let path = try TestPaths.realData(relative)
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
        // The other rejections are the 4 rows of the legacy sales report report2.txt (AppleReportRealDataTests).
        let rejections = try audit().snapshot.rejections.all()
        XCTAssertEqual(rejections.count, 5)
        let rejection = try XCTUnwrap(rejections.first { $0.location.file.hasSuffix("ReceiptResponseInvalidFormat.json") })
        XCTAssertEqual(rejections.filter { $0.location.file.hasSuffix("alexvollmer__itunes-connect/report2.txt") }.count, 4)
        XCTAssertEqual(rejection.location.line, 4)
        XCTAssertEqual(rejection.reason, "invalid JSON: trailing comma at line 4, column 1")
    }

    /// The receipt's `receipt_creation_date(_ms)` and `request_date(_ms)` (ms fields first, else the
    /// `Etc/GMT` text) are stored on each verifyReceipt answer, exactly.
    func testReceiptCreationAndRequestDatesAreStored() throws {
        _ = try audit()
        let rows =
            try PythonReader.run(
                """
                import json, os, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                rows = db.execute('''SELECT f.path, r.receipt_creation_date_ms, r.request_date_ms FROM apple_record r
                                     JOIN source_file f USING (file_id)
                                     WHERE r.receipt_creation_date_ms IS NOT NULL OR r.request_date_ms IS NOT NULL''').fetchall()
                print(json.dumps({os.path.relpath(os.path.realpath(p), os.path.realpath(sys.argv[2])): [c, q] for p, c, q in rows}))
                """, args: [RealDataTests.out + "/audit.sqlite", try TestPaths.realData]) as! [String: [Any]]
        let expected: [String: [Int64?]] = [
            "RevenueCat__purchases-ios/verifyReceiptSample1.txt": [1_595_439_548_000, 1_595_440_486_402],
            // The creation date only as text: "2013-08-01 07:00:00 Etc/GMT".
            "aporat__store-receipt-validator/inAppPurchaseResponse.json": [1_375_340_400_000, 1_432_485_078_143],
            "crashoverride777__swifty-receipt-validator/ReceiptResponseSandbox.json": [1_565_903_154_000, 1_565_903_212_899],
            "crashoverride777__swifty-receipt-validator/ReceiptResponseSubscriptionExpired.json": [1_565_903_154_000, 1_565_903_212_899],
            "crashoverride777__swifty-receipt-validator/ReceiptResponseValidSubscription.json": [1_565_903_154_000, 1_565_903_212_899],
            "gabrielgarza__monza/cancellation_response.json": [1_466_128_466_000, 1_466_184_881_174],
            "gabrielgarza__monza/response.json": [1_466_128_466_000, 1_466_184_881_174],
            // A receipt without a creation date: only the request date.
            "nov__itunes-receipt/array_of_latest_receipt_info.json": [nil, 1_415_805_930_053],
            "nov__itunes-receipt/valid_application.json": [nil, 1_385_477_349_878],
        ]
        XCTAssertEqual(Set(rows.keys), Set(expected.keys))
        for (file, dates) in expected {
            XCTAssertEqual(rows[file]?.map { ($0 as? NSNumber)?.int64Value }, dates, file)
        }
    }

    func testExactReceiptTransactionsPerFile() throws {
        try TestPaths.requireRealData()
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
                rows = db.execute('''SELECT f.path, r.status, t.transaction_id FROM apple_record r JOIN source_file f USING (file_id)
                                     LEFT JOIN apple_transaction t USING (record_id)''').fetchall()
                print(json.dumps(rows))
                """, args: [RealDataTests.out + "/audit.sqlite"]) as! [[Any]]
        _ = try audit()
        for (relative, ids) in expected {
            let path = try TestPaths.realData(relative)
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

    /// Every file is imported with its kind or skipped as not evidence with the reason; none is
    /// "unsupported"; exact counts per kind. App Store Connect's reports are imported as their own kinds
    /// (not transaction evidence): 3 sales reports (Summary Sales and 2 legacy daily), a Subscription and a
    /// Subscription Event report, 3 financial reports and a payments summary.
    func testEveryFileIsClassified() throws {
        let files = try audit().snapshot.files
        XCTAssertEqual(files.count, 94)
        var counts: [String: Int] = [:]
        for f in files { counts["\(f.kind)/\(f.status)", default: 0] += 1 }
        XCTAssertEqual(
            counts,
            [
                "verify_response/imported": 15, "signed_transaction/imported": 9, "server_api_response/imported": 15,
                "notification_v2/imported": 7, "notification_v1/imported": 7, "app_receipt/imported": 13,
                "sales_report/imported": 3, "subscription_report/imported": 1, "subscription_event_report/imported": 1,
                "financial_report/imported": 3, "payments_summary/imported": 1, "other/skipped": 18, "other/rejected": 1,
            ])
        XCTAssertFalse(
            files.contains { $0.note.contains("support") }, files.map(\.note).filter { $0.contains("support") }.joined(separator: "\n"))
        for f in files where f.status == "skipped" {
            XCTAssertTrue(f.note.contains("not evidence") || f.note.contains("not transaction evidence"), "\(f.path): \(f.note)")
            XCTAssertEqual(f.recordsIn, 0)
        }
        XCTAssertEqual(try file("namecare__app-store-server-library-rust/AppleRootCA-G3.cer").note, "DER certificate (not evidence)")
        XCTAssertEqual(
            try file("RevenueCat__purchases-ios/StoreKitConfiguration.storekit").note, "StoreKit configuration file (not evidence)")
        XCTAssertEqual(try file("tikhop__TPInAppReceipt/receipt-production").note, "base64 app receipts, one per line")
        XCTAssertEqual(try file("voltrue2__in-app-purchase/apple").note, "base64 app receipt, line-wrapped")
        XCTAssertEqual(try file("gabrielgarza__monza/cancel.json").kind, "notification_v1")
        XCTAssertEqual(try file("apple__app-store-server-library-swift/transactionInfo").kind, "signed_transaction")
    }

    /// Signature states with Apple's anchors: the genuine Apple-signed TEST notification and the real
    /// receipts verify at their own dates; test-CA and Xcode data is untrusted; the header without x5c is invalid.
    func testSignatureStatesWithApplesAnchors() throws {
        let records = Dictionary(
            try audit().snapshot.appleRecords.all().map { (URL(fileURLWithPath: $0.location.file).lastPathComponent, $0.signature) },
            uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(records["test-notification-signed-payload.json"], "verified")
        XCTAssertEqual(records["testNotification"], "untrusted_root")
        XCTAssertEqual(records["transactionInfo"], "untrusted_root")
        XCTAssertEqual(records["missingX5CHeaderClaim"], "invalid:missing_x5c")
        XCTAssertEqual(records["xcode-signed-transaction"], "untrusted_root")
        XCTAssertEqual(records["receipt-production"], "verified")
        XCTAssertEqual(records["base64encodedreceiptsample1.txt"], "verified")
        XCTAssertEqual(records["receipt-xcode"], "untrusted_root")
        XCTAssertEqual(records["signedTransaction.json"], "not_checked")
        XCTAssertEqual(records["legacyTransaction"], "not_checked")
        let summary =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute('SELECT source, signature, records FROM signature_summary ORDER BY 1, 2').fetchall()))
                """, args: [RealDataTests.out + "/audit.sqlite"]) as! [[Any]]
        XCTAssertEqual(
            summary.map { "\($0[0]) \($0[1]) \($0[2])" },
            [
                "app_receipt untrusted_root 3", "app_receipt verified 7", "app_transaction not_checked 1",
                "app_transaction untrusted_root 1", "notification_v1 not_checked 7", "notification_v2 invalid:missing_x5c 1",
                "notification_v2 not_checked 4", "notification_v2 untrusted_root 1", "notification_v2 verified 1",
                "server_api not_checked 15", "signed_renewal_info not_checked 1", "signed_renewal_info untrusted_root 1",
                "signed_transaction not_checked 2", "signed_transaction untrusted_root 3", "transaction_receipt not_checked 3",
                "verify_receipt not_checked 15",
            ])
    }

    /// The RevenueCat receipt and Apple's verifyReceipt answer for it list the same 9 transactions: one
    /// transaction each, with both sources as evidence.
    func testRevenueCatReceiptAndResponseAreOneTransactionWithTwoSources() throws {
        _ = try audit()
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                q = "SELECT transaction_id, group_concat(source, ',') FROM (SELECT transaction_id, source FROM transaction_evidence " \\
                    "WHERE file LIKE '%RevenueCat__purchases-ios%' ORDER BY source) GROUP BY transaction_id ORDER BY transaction_id"
                print(json.dumps(db.execute(q).fetchall()))
                """, args: [RealDataTests.out + "/audit.sqlite"]) as! [[Any]]
        XCTAssertEqual(rows.count, 9)
        XCTAssertTrue(rows.allSatisfy { ($0[1] as? String) == "app_receipt,verify_receipt" }, "\(rows)")
    }

    /// Findings on the real files: Apple-side dropped orders only from production data Apple stands
    /// behind, and the re-issued ids of the laravel receipt. No dropped order comes from a record whose
    /// environment signals disagree (rule 24): server-notification.json says Production but renews every
    /// 5 minutes (54 rows), autorenew_subscription.json names no environment and renews every 5 minutes
    /// (2 rows); each is named in a warning with its count.
    func testFindingsOnRealData() throws {
        let result = try audit()
        let findings = try result.snapshot.findings.all()
        var byFile: [String: Int] = [:]
        for f in findings where f.kind == .droppedOrder {
            byFile[URL(fileURLWithPath: f.evidence[0].file).lastPathComponent, default: 0] += 1
        }
        XCTAssertEqual(
            byFile, ["serverNotificationRequest.json": 1, "cancel.json": 1, "valid.json": 1, "receipt-production": 4])
        let conflicts = result.warnings.filter { $0.code == .environmentConflict }
        let root = try TestPaths.realData
        XCTAssertEqual(
            conflicts.map(\.file),
            ["imdhemy__appstore-iap/server-notification.json", "nov__itunes-receipt/autorenew_subscription.json"].map { root + "/" + $0 })
        XCTAssertTrue(
            conflicts.allSatisfy {
                $0.message.hasPrefix($0.file! + ": 1 Apple record(s) whose environment signals disagree (Production with a sandbox")
            }, "\(conflicts)")
        let unknown = result.warnings.filter { $0.code == .environmentUnknown }.map { URL(fileURLWithPath: $0.file!).lastPathComponent }
        XCTAssertEqual(unknown.sorted(), ["legacyTransaction", "receipt_expired_cancelled.json", "valid.json"])
        XCTAssertEqual(
            findings.filter { $0.kind == .droppedOrder && $0.evidence[0].file.hasSuffix("receipt-production") }.map(\.transactionId)
                .sorted(),
            ["340001196262039", "340001237736590", "340001264290434", "340001311555626"])
        XCTAssertEqual(findings.filter { $0.kind == .idReissued }.count, 54)
        // What those two files list is info sandbox_refused/environment_conflict, one row per purchase.
        var conflicting: [String: Int] = [:]
        for f in findings where f.kind == .sandboxRefused && f.reason == "environment_conflict" {
            conflicting[URL(fileURLWithPath: f.evidence[0].file).lastPathComponent, default: 0] += 1
        }
        XCTAssertEqual(conflicting, ["server-notification.json": 54, "autorenew_subscription.json": 2])
        XCTAssertEqual(findings.count, 7 + 54 + 56)
    }

    /// The Apple Records sheet, read back with openpyxl: one row per non-verifyReceipt record with its
    /// signature column.
    func testAppleRecordsSheetShowsTheSignature() throws {
        _ = try audit()
        let read =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1])["Apple Records"]
                rows = list(ws.iter_rows(values_only=True))
                header = list(rows[0])
                col = header.index("signature")
                by = {r[0].split("/")[-1]: r[col] for r in rows[1:]}
                print(json.dumps({"header": header, "count": len(rows) - 1, "by": by}))
                """, args: [RealDataTests.out + "/audit.xlsx"]) as! [String: Any]
        XCTAssertEqual(read["header"] as? [String], ReportBuilder.appleRecordHeader)
        XCTAssertEqual(read["count"] as? Int, 66 - 15, "imported Apple records that are not verifyReceipt responses")
        let by = try XCTUnwrap(read["by"] as? [String: String])
        XCTAssertEqual(by["test-notification-signed-payload.json"], "verified")
        XCTAssertEqual(by["missingX5CHeaderClaim"], "invalid:missing_x5c")
        XCTAssertEqual(by["receipt-production"], "verified")
        XCTAssertEqual(by["testNotification"], "untrusted_root")
    }

    func testCancellationAndEnvironmentAreRead() throws {
        _ = try audit()
        let ledger = try AuditStore(path: RealDataTests.out + "/audit.sqlite").loadLedger()
        let cancellation = try XCTUnwrap(ledger.appleRecords.first { $0.location.file.hasSuffix("cancellation_response.json") })
        XCTAssertEqual(cancellation.items.first { $0.transactionId == "1000000218147500" }?.cancellationDateMs, 1_466_127_848_000)
        XCTAssertTrue(cancellation.isSandbox)
        let sandboxed = try XCTUnwrap(ledger.appleRecords.first { $0.location.file.hasSuffix("nov__itunes-receipt/sandboxed.json") })
        XCTAssertNil(sandboxed.environment)
        XCTAssertEqual(sandboxed.effectiveEnvironment, "Sandbox", "an un-retried 21007 is a sandbox answer")
    }

    func testCommandLineRunExitsZeroWithASummary() throws {
        let out = TestPaths.scratch()
        let run = CLIRun(["run", try TestPaths.realData, "--out", out])
        XCTAssertEqual(run.status, 0)
        // 66 evidence records and 1 rejection, plus the reports' 178 lines: 174 imported, report2.txt's 4 rows rejected.
        XCTAssertTrue(run.out.contains("Records: 245 in = 240 imported + 5 rejected"), run.out)
        XCTAssertTrue(run.err.contains("ReceiptResponseInvalidFormat.json:4: error: invalid JSON: trailing comma"), run.err)
    }
}
