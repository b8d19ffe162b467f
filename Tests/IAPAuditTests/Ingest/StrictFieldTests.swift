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

/// Values that would make wrong findings are rejected, not guessed at.
final class StrictFieldTests: XCTestCase {
    func reasons(_ text: String) -> [String] {
        FileImporter.read(InputFile(path: "x", data: Data(text.utf8))).rejections.map(\.reason)
    }

    func testSpreadsheetMangledIdIsRejected() {
        XCTAssertEqual(
            reasons("ts,user_id,transaction_id,state\n1790812800000,u1,2.00000041234568E+15,purchased\n"),
            [
                #"field 'transaction_id': "2.00000041234568E+15" looks like an id a spreadsheet rewrote as a number "#
                    + "(in scientific notation, which loses digits); export the column as text"
            ])
    }

    /// Ids in floating-point form, as text or as JSON numbers, in every id field and list, fast path or
    /// strict: rejected with how they were probably made (a real user got 205 false dropped orders
    /// from `2000000400594084.0` read as a new id).
    func testIdsInFloatingPointFormAreRejected() {
        let spreadsheet = { (field: String, text: String, damage: String) in
            "field '\(field)': \"\(text)\" looks like an id a spreadsheet rewrote as a number (\(damage)); export the column as text"
        }
        let dotZero = "'.0' added or digits lost"
        XCTAssertEqual(
            reasons("ts,user_id,transaction_id,state\n1790812800000,u1,2000000400594084.0,purchased\n"),
            [spreadsheet("transaction_id", "2000000400594084.0", dotZero)])
        XCTAssertEqual(
            reasons(
                #"{"ts": "2026-10-01T00:00:00Z", "request_id": "r1", "transaction_ids": ["1", "2000000400594084.0"], "granted": true}"#),
            [spreadsheet("transaction_ids", "2000000400594084.0", dotZero)])
        XCTAssertEqual(
            reasons("ts,request_id,transaction_ids,credited_transaction_ids,granted\n1790812800000,r1,1,2000000400594084.,true\n"),
            [spreadsheet("credited_transaction_ids", "2000000400594084.", dotZero)])
        XCTAssertEqual(
            reasons(#"{"ts": "2026-10-01T00:00:00Z", "transaction_id": "2.000000400594084e+15", "state": "purchased"}"#),
            [spreadsheet("transaction_id", "2.000000400594084e+15", "in scientific notation, which loses digits")])
        XCTAssertEqual(
            reasons(#"{"ts": "2026-10-01T00:00:00Z", "transaction_id": 2000000400594084.0, "state": "purchased"}"#),
            [
                "field 'transaction_id': 2000000400594084.0 looks like an id a program wrote as a floating-point number "
                    + "('.0' added or digits lost); write ids as text"
            ])
        let verify = #"{"status": 0, "receipt": {"in_app": [{"transaction_id": "1", "web_order_line_item_id": "2.000000400594084E15"}]}}"#
        XCTAssertEqual(
            reasons(verify),
            [spreadsheet("receipt.in_app[0].web_order_line_item_id", "2.000000400594084E15", "in scientific notation, which loses digits")])
        // A fraction that is not zeros is no spreadsheet's doing: text, as written (a request id may be a time).
        XCTAssertEqual(reasons(#"{"ts": "2026-10-01T00:00:00Z", "transaction_id": "1790812800.25", "state": "purchased"}"#), [])
    }

    func testEmptyIdInsideAListIsRejected() {
        XCTAssertEqual(
            reasons(#"{"ts": "2026-10-01T00:00:00Z", "request_id": "r1", "transaction_ids": ["1", ""], "granted": true}"#),
            ["field 'transaction_ids': holds an empty or null id"])
        XCTAssertEqual(
            reasons("ts,request_id,transaction_ids,granted\n1790812800000,r1,1;;2,true\n"),
            ["field 'transaction_ids': holds an empty id"])
    }

    func testBooleansAreOnlyTheDocumentedForms() {
        XCTAssertEqual(
            reasons(#"{"ts": "2026-10-01T00:00:00Z", "request_id": "r1", "transaction_ids": ["1"], "granted": "TRUE"}"#),
            ["field 'granted': expected a boolean, found \"TRUE\""])
        XCTAssertEqual(
            reasons(#"{"ts": "2026-10-01T00:00:00Z", "request_id": "r1", "transaction_ids": ["1"], "granted": 1}"#),
            ["field 'granted': expected a boolean, found 1"])
    }

    func testWrappedResponseNeedsReceivedAt() {
        XCTAssertEqual(reasons(#"{"request_id": "r1", "response": {"status": 0}}"#), ["missing required field 'received_at'"])
    }

    func testSandboxSpellings() {
        func response(environment: String?, receiptType: String?) -> AppleRecord {
            AppleRecord(
                location: SourceLocation(file: "v", line: 1), requestId: nil, receivedAtMs: nil, status: 0, environment: environment,
                isRetryable: nil, bundleId: nil, receiptType: receiptType, items: [], rawJSON: "")
        }
        XCTAssertTrue(response(environment: nil, receiptType: "ProductionVPPSandbox").isSandbox)
        XCTAssertFalse(response(environment: nil, receiptType: "ProductionVPP").isSandbox)
        XCTAssertTrue(response(environment: "sandbox", receiptType: nil).isSandbox)
        XCTAssertEqual(Environment.normalized("SANDBOX"), "Sandbox")
        XCTAssertEqual(Environment.normalized("PROD"), "Production", "Notifications V1 say PROD")
        XCTAssertEqual(Environment.normalized("xcode"), "Xcode")
        XCTAssertEqual(Environment.normalized("LocalTestingxxx"), "LocalTestingxxx", "unknown values kept raw")
        XCTAssertTrue(response(environment: "Xcode", receiptType: nil).isSandbox, "Xcode is never production")
        XCTAssertTrue(response(environment: "LocalTesting", receiptType: nil).isSandbox)
        XCTAssertTrue(response(environment: nil, receiptType: "Xcode").isSandbox)
        XCTAssertFalse(response(environment: nil, receiptType: nil).isSandbox, "Apple saying nothing is not a sandbox answer")
    }
}

/// Files that are not what they seem are read as far as they can be, or skipped with a reason.
final class OddFileTests: XCTestCase {
    func read(_ data: Data) -> ImportedRecords { FileImporter.read(InputFile(path: "f", data: data)) }

    func testTextLineBeforeJSONLines() {
        let file = read(
            Data(
                "# exported 2026-10-31\n{\"ts\": \"2026-10-01T00:00:00Z\", \"user_id\": \"u1\", \"transaction_id\": \"1\", \"state\": \"purchased\"}\n"
                    .utf8))
        XCTAssertEqual(file.kind, .clientReport)
        XCTAssertEqual(file.clientReports.count, 1)
        XCTAssertEqual(file.rejections.map(\.location.line), [1])
        XCTAssertEqual(file.recordsIn, 2)
    }

    /// A document over the 64 MB a document may be is not tried: its one rejection says so, not what its
    /// first line (`{`) alone would give, "expected a key string" (found by a user).
    func testADocumentOverTheLimitIsRejectedAsTooLarge() {
        let receipt = Data(repeating: UInt8(ascii: "A"), count: 64 << 20)
        let file = read(Data("{\n  \"status\": 0,\n  \"latest_receipt\": \"".utf8) + receipt + Data("\"\n}\n".utf8))
        XCTAssertEqual([file.status.rawValue, file.note], ["rejected", "JSON document over 64 MB (not read)"])
        XCTAssertEqual(
            file.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "1: JSON document too large: 67,108,906 bytes, over the limit of 64 MB (67,108,864 bytes) for one document; not read "
                    + "(JSON Lines, one record a line, has no such limit)"
            ])
    }

    func testCompressedAndForeignFormatsAreNamed() {
        // Gzip is read (GzipInputTests); a bare gzip header is an archive cut off before any content.
        XCTAssertEqual(read(Data([0x1F, 0x8B, 0x08, 0x00])).note, "gzip archive truncated: nothing could be read")
        XCTAssertEqual(read(Data([0x50, 0x4B, 0x03, 0x04, 0x14])).note, "zip archive or XLSX workbook (extract or export it as CSV first)")
        XCTAssertEqual(
            read(Data("ts;user_id;transaction_id;state\n1;u;1;purchased\n".utf8)).note,
            "CSV separated by ';' (iap-audit reads comma-separated CSV)")
    }
}
