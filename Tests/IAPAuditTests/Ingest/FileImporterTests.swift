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

/// Kind detection from content, and every line imported or rejected with file:line.
final class FileImporterTests: XCTestCase {
    func read(_ text: String, path: String = "in.dat") -> ImportedRecords {
        FileImporter.read(InputFile(path: path, data: Data(text.utf8)))
    }

    func testClientJSONLinesWithBadLines() {
        let file = read(
            """
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "device_id": "d1", "transaction_id": "100", "original_transaction_id": "100", "product_id": "p", "state": "purchased"}
            {"ts": "2026-10-01T00:00:01Z", "user_id": "u1", "transaction_id": null, "product_id": "p", "state": "failed", "error_code": 2}

            {"ts": "2026-10-01T00:00:02Z", "user_id": "u1", "transaction_id": "101", "state": "bought"}
            {"ts": "2026-10-01T00:00:03Z", "user_id": "u1", "state": "purchased"}
            not json at all
            {"ts": "soon", "user_id": "u1", "transaction_id": "102", "state": "purchased"}
            """, path: "client.jsonl")
        XCTAssertEqual(file.kind, .clientReport)
        XCTAssertEqual(file.format, .jsonLines)
        XCTAssertEqual(file.recordsIn, 6, "the blank line 3 is not a record")
        XCTAssertEqual(file.clientReports.count, 2)
        XCTAssertEqual(file.clientReports[1].errorCode, 2)
        XCTAssertNil(file.clientReports[1].transactionId)
        XCTAssertEqual(
            file.rejections.map(\.location.description), ["client.jsonl:4", "client.jsonl:5", "client.jsonl:6", "client.jsonl:7"])
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                #"field 'state': unknown state "bought" (expected purchasing, purchased, failed, deferred or restored)"#,
                "missing required field 'transaction_id'",
                "invalid JSON: invalid literal at line 1, column 2",
                #"field 'ts': not a timestamp: "soon" (expected ISO 8601 or epoch milliseconds, 1900–2200)"#,
            ])
        XCTAssertEqual(file.recordsIn, file.recordsImported + file.rejections.count)
    }

    func testServerCSVWithSemicolonIdsAndQuotedFields() {
        let file = read(
            """
            ts,request_id,user_id,device_id,transaction_ids,restore,receipt_sha256,verify_status,environment,granted,latency_ms,credited_transaction_ids
            1790812800000,r1,u1,d1,100;101,false,ab,0,Production,true,830,100
            2026-10-01T00:00:05Z,r2,"u,2",d2,102,"true",cd,,,"false",,
            2026-10-01T00:00:06Z,r3,u3,d3,103,false,ef,0,Production
            2026-10-01T00:00:07Z,r4,u4,d4,104,false,ef,x,Production,true,1,
            """, path: "server.csv")
        XCTAssertEqual(file.kind, .serverLog)
        XCTAssertEqual(file.format, .csv)
        XCTAssertEqual(file.recordsIn, 4)
        XCTAssertEqual(file.serverRequests.map(\.requestId), ["r1", "r2"])
        XCTAssertEqual(file.serverRequests[0].transactionIds, ["100", "101"])
        XCTAssertEqual(file.serverRequests[0].creditedTransactionIds, ["100"])
        XCTAssertEqual(file.serverRequests[0].tsMs, 1_790_812_800_000)
        XCTAssertEqual(file.serverRequests[1].userId, "u,2")
        XCTAssertEqual(file.serverRequests[1].restore, true)
        XCTAssertNil(file.serverRequests[1].verifyStatus, "empty = null: Apple never answered")
        XCTAssertNil(file.serverRequests[1].creditedTransactionIds)
        XCTAssertEqual(file.rejections.map(\.location.line), [4, 5])
        XCTAssertEqual(file.rejections[0].reason, "expected 12 fields as in the header, found 9")
        XCTAssertEqual(file.rejections[1].reason, #"field 'verify_status': expected an integer, found "x""#)
    }

    /// Ids written into one CSV field as a JSON array or with commas are refused with the way to write
    /// them, not stored as one made-up id (two false dropped orders and two invalid credits).
    func testServerCSVIdsAsAJSONArrayOrCommasAreRejected() {
        let file = read(
            """
            ts,request_id,user_id,transaction_ids,granted
            2026-10-01T00:00:05Z,r1,u1,"[""2000000400000001"",""2000000400000002""]",true
            2026-10-01T00:00:06Z,r2,u1,"2000000400000001,2000000400000002",true
            2026-10-01T00:00:07Z,r3,u1,2000000400000001; 2000000400000002,true
            """, path: "server.csv")
        XCTAssertEqual(file.serverRequests.map(\.transactionIds), [["2000000400000001", "2000000400000002"]])
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                #"field 'transaction_ids': "["2000000400000001","2000000400000002"]" is not a list of ids separated by ';' (write 1000001;1000002, not a JSON array or commas)"#,
                #"field 'transaction_ids': "2000000400000001,2000000400000002" is not a list of ids separated by ';' (write 1000001;1000002, not a JSON array or commas)"#,
            ])
    }

    func testWrappedVerifyResponsesWithAllShapes() {
        let file = read(
            """
            {"request_id": "r1", "received_at": "2026-10-01T00:00:01Z", "response": {"status": 21007}}
            {"request_id": "r1", "received_at": "2026-10-01T00:00:02Z", "response": {"status": "0", "environment": "Sandbox", "receipt": {"bundle_id": "com.example.app", "receipt_type": "ProductionSandbox", "in_app": [{"transaction_id": 9223372036854775001, "original_transaction_id": "9223372036854775001", "product_id": "p", "purchase_date": "2026-10-01 00:00:00 Etc/GMT", "quantity": "1", "is_trial_period": "false"}]}, "latest_receipt_info": {"transaction_id": "9223372036854775001", "cancellation_date_ms": "1790899200000", "in_app_ownership_type": "FAMILY_SHARED"}}}
            {"request_id": "r2", "received_at": "2026-10-01T00:00:03Z", "response": {"status": 21199, "is-retryable": "false"}}
            {"request_id": "r3", "received_at": "2026-10-01T00:00:04Z", "response": {"environment": "Production"}}
            {"request_id": "r4", "received_at": "2026-10-01T00:00:05Z", "response": {"status": 0, "receipt": {"in_app": [{"product_id": "p"}]}}}
            """, path: "verify.jsonl")
        XCTAssertEqual(file.kind, .verifyResponse)
        XCTAssertEqual(file.appleRecords.count, 3)
        let sandbox = file.appleRecords[1]
        XCTAssertEqual(sandbox.status, 0)
        XCTAssertEqual(sandbox.receiptType, "ProductionSandbox")
        XCTAssertEqual(sandbox.items.count, 1, "in_app and latest_receipt_info list one transaction")
        let item = sandbox.items[0]
        XCTAssertEqual(item.transactionId, "9223372036854775001")
        XCTAssertEqual(item.purchaseDateMs, 1_790_812_800_000)
        XCTAssertEqual(item.cancellationDateMs, 1_790_899_200_000)
        XCTAssertEqual(item.inAppOwnershipType, "FAMILY_SHARED")
        XCTAssertEqual(item.isTrialPeriod, false)
        XCTAssertEqual(item.sections, ["in_app", "latest_receipt_info"])
        XCTAssertEqual(file.appleRecords[2].isRetryable, false)
        XCTAssertTrue(
            file.appleRecords[1].rawJSON.hasPrefix(#"{"request_id": "r1", "received_at": "2026-10-01T00:00:02Z""#),
            "the raw line is kept as sent")
        XCTAssertEqual(file.rejections.map(\.location.line), [4, 5])
        XCTAssertEqual(
            file.rejections.map(\.reason), ["missing required field 'status'", "missing required field 'receipt.in_app[0].transaction_id'"])
    }

    func testIOS6FlatReceipt() {
        let file = read(
            #"{"status": 0, "receipt": {"bid": "com.example.app", "bvrs": "1.0", "item_id": "521129812", "transaction_id": "1000000001479608", "original_transaction_id": "1000000001479608", "product_id": "p", "purchase_date": "2011-02-17 06:20:57 Etc/GMT", "quantity": "1"}}"#
        )
        XCTAssertEqual(file.appleRecords.first?.bundleId, "com.example.app")
        XCTAssertEqual(file.appleRecords.first?.items.map(\.transactionId), ["1000000001479608"])
        XCTAssertEqual(file.appleRecords.first?.items.first?.sections, ["receipt"])
    }

    func testKindIsDetectedFromContentNotName() {
        XCTAssertEqual(read(#"{"status": 21005}"#, path: "client.csv").kind, .verifyResponse)
        XCTAssertEqual(read("ts,user_id,transaction_id,state\n1,u,1,purchased\n", path: "verify.json").kind, .clientReport)
        XCTAssertEqual(read("").status, .skipped)
        XCTAssertEqual(read("").note, "empty file")
        XCTAssertEqual(read(#"{"notification_type": "CANCEL"}"#).kind, .notificationV1)
        XCTAssertEqual(read("-----BEGIN CERTIFICATE-----\nMIIB\n").note, "PEM certificate (not evidence)")
        XCTAssertEqual(read(#"{"bundle_ids": ["a"]}"#).note, "iap-audit configuration (not evidence; pass it with --config)")
    }

    /// The kind comes from the first record of a known kind, so a stray first line costs one line.
    func testStrayFirstLineDoesNotHideTheFile() {
        let file = read(
            """
            {"hello": "world"}
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "state": "purchased"}
            """)
        XCTAssertEqual(file.kind, .clientReport)
        XCTAssertEqual(file.clientReports.count, 1)
        XCTAssertEqual(file.rejections.map(\.reason), ["missing required field 'state'"])
    }
}

/// Encodings and CSV records that span lines.
final class FileImporterEncodingTests: XCTestCase {
    let header = "ts,user_id,transaction_id,state\n"

    func testUTF8ByteOrderMarkIsDropped() {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let jsonl = FileImporter.read(InputFile(path: "a", data: bom + Data(#"{"status": 21005}"#.utf8)))
        XCTAssertEqual(jsonl.appleRecords.count, 1)
        let csv = FileImporter.read(InputFile(path: "b", data: bom + Data((header + "1790812800000,u1,100,purchased\n").utf8)))
        XCTAssertEqual(csv.clientReports.count, 1)
        XCTAssertEqual(csv.rejections, [])
    }

    /// Excel for Mac's "CSV (Macintosh)" ends lines with a lone CR; a binary file with CR bytes is left alone.
    func testCROnlyLineEndsAreLineEnds() {
        let csv = FileImporter.read(
            InputFile(
                path: "mac.csv",
                data: Data((header + "1790812800000,u1,100,purchased\n1790812800001,u2,101,purchased\n").utf8.map { $0 == 10 ? 13 : $0 })))
        XCTAssertEqual(csv.clientReports.map(\.transactionId), ["100", "101"])
        XCTAssertEqual(csv.clientReports.map(\.location.line), [2, 3])
        let jsonl = FileImporter.read(
            InputFile(
                path: "a.jsonl",
                data: Data(#"{"status": 21005}"#.utf8) + Data([13]) + Data(#"{"status": 21007}"#.utf8)))
        XCTAssertEqual(jsonl.appleRecords.map(\.status), [21005, 21007])
        let binary = Data([0x30, 0x82, 0x01, 0x0D, 0x00, 0x0D])
        XCTAssertEqual(InputFile(path: "r", data: binary).data, binary)
    }

    /// CR-ended lines with a CR LF or an LF at the end (a line appended by another program) are still
    /// CR-ended lines; an LF file with one stray CR is left as it is (that line is rejected, not split).
    func testCRLinesWithACRLFAtTheEndAreLines() {
        let rows = "1790812800000,u1,100,purchased\r1790812800001,u2,101,purchased\r1790812800002,u3,102,purchased"
        for end in ["\r\n", "\n"] {
            let csv = FileImporter.read(
                InputFile(path: "mac.csv", data: Data((header.replacingOccurrences(of: "\n", with: "\r") + rows + end).utf8)))
            XCTAssertEqual(csv.clientReports.map(\.transactionId), ["100", "101", "102"], end.debugDescription)
            XCTAssertEqual(csv.clientReports.map(\.location.line), [2, 3, 4])
            XCTAssertEqual(csv.recordsIn, 3)
        }
        let mixed =
            Data(#"{"status": 21005}"#.utf8) + Data([13]) + Data(#"{"status": 21007}"#.utf8) + Data([13, 10])
            + Data(#"{"status": 21002}"#.utf8) + Data([13])
        XCTAssertEqual(FileImporter.read(InputFile(path: "a.jsonl", data: mixed)).appleRecords.map(\.status), [21005, 21007, 21002])
        // The header ends in a lone CR, LFs follow: CR and LF both end lines.
        let both =
            header.replacingOccurrences(of: "\n", with: "\r")
            + "1790812800000,u1,100,purchased\r\n1790812800001,u2,101,purchased\n1790812800002,u3,102,purchased\n"
        XCTAssertEqual(
            FileImporter.read(InputFile(path: "b.csv", data: Data(both.utf8))).clientReports.map(\.transactionId), ["100", "101", "102"])
        let lf = Data((header + "1790812800000,u1,100,purchased\n1790812800001,u2,10\r1,purchased\n").utf8)
        XCTAssertEqual(InputFile(path: "c", data: lf).data, lf)
        let file = FileImporter.read(InputFile(path: "c.csv", data: lf))
        XCTAssertEqual(file.clientReports.map(\.transactionId), ["100"])
        XCTAssertEqual(file.rejections.map(\.location.line), [3])
    }

    func testUTF16IsConverted() throws {
        let text = header + "1790812800000,u1,100,purchased\n"
        let data = try XCTUnwrap(text.data(using: .utf16))  // with a byte-order mark
        let file = FileImporter.read(InputFile(path: "c", data: data))
        XCTAssertEqual(file.clientReports.map(\.transactionId), ["100"])
        XCTAssertEqual(file.sha256, InputFile.sha256Hex(data), "the hash is of the bytes on disk")
    }

    /// Half a surrogate pair in UTF-16 rejects its own line (as not UTF-8), not the whole file; the others
    /// read, big- and little-endian, JSON Lines and CSV; a pair (an emoji in a user id) is one character.
    func testUTF16HalfSurrogateRejectsOnlyItsLine() {
        func utf16(_ text: String, bigEndian: Bool, breakLine2: Bool) -> Data {
            var units = Array(text.utf16)
            if breakLine2, let at = units.firstIndex(of: 0x58) { units[at] = 0xD83D }
            var data = Data(bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE])
            for u in units { data += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
            return data
        }
        let jsonl = [
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u🎮","transaction_id":"1","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"uX","transaction_id":"2","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u3","transaction_id":"3","state":"purchased"}"#,
        ].joined(separator: "\n")
        let csv = header + "1790812800000,u🎮,1,purchased\n1790812800000,uX,2,purchased\n1790812800000,u3,3,purchased\n"
        for (text, path) in [(jsonl, "u.jsonl"), (csv, "u.csv")] {
            for bigEndian in [false, true] {
                let file = FileImporter.read(InputFile(path: path, data: utf16(text, bigEndian: bigEndian, breakLine2: true)))
                XCTAssertEqual(file.clientReports.map(\.transactionId), ["1", "3"], path)
                XCTAssertEqual(file.clientReports.first?.userId, "u🎮")
                XCTAssertEqual(file.rejections.map(\.location.line), [path == "u.csv" ? 3 : 2], path)  // the CSV header is line 1
                XCTAssertEqual(file.recordsIn, 3)
                let clean = FileImporter.read(InputFile(path: path, data: utf16(text, bigEndian: bigEndian, breakLine2: false)))
                XCTAssertEqual(clean.clientReports.map(\.userId), ["u🎮", "uX", "u3"])
            }
        }
        // A last odd byte is not silently dropped: the last line is rejected.
        let odd = FileImporter.read(InputFile(path: "o.jsonl", data: utf16(jsonl, bigEndian: false, breakLine2: false) + [0x7D]))
        XCTAssertEqual(odd.clientReports.map(\.transactionId), ["1", "2"])
        XCTAssertEqual(odd.rejections.map(\.location.line), [3])
    }

    /// A quoted field may hold a line break (here in an extra `note` column, which is ignored).
    func testQuotedNewlineJoinsLinesAndAStrayQuoteCostsOneLine() {
        let file = FileImporter.read(
            InputFile(
                path: "d.csv",
                data: Data(
                    """
                    ts,user_id,transaction_id,state,note
                    1790812800000,u1,100,purchased,"two
                    lines"
                    1790812800001,u2,101,purchased,"broken
                    1790812800002,u3,102,purchased,
                    1790812800003,u4,103,purchased,"a ""quoted"" word"
                    """.utf8)))
        XCTAssertEqual(file.clientReports.map(\.userId), ["u1", "u3", "u4"])
        XCTAssertEqual(file.clientReports.map(\.location.line), [2, 5, 6])
        XCTAssertEqual(file.rejections.map(\.location.line), [4])
        XCTAssertEqual(file.rejections.first?.reason, "unterminated quoted field")
        XCTAssertEqual(file.recordsIn, 4)
    }

    func testOutOfRangeTimestampIsRejectedNotACrash() {
        let file = FileImporter.read(
            InputFile(
                path: "e",
                data: Data(
                    """
                    {"ts": 9223372036854775807, "request_id": "r1", "transaction_ids": ["1"], "granted": true}
                    {"ts": "0001-01-01T00:00:00Z", "request_id": "r2", "transaction_ids": ["1"], "granted": true}
                    """.utf8)))
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                "field 'ts': epoch milliseconds 9223372036854775807 outside 1900–2200",
                #"field 'ts': not a timestamp: "0001-01-01T00:00:00Z" (expected ISO 8601 or epoch milliseconds, 1900–2200)"#,
            ])
    }
}
