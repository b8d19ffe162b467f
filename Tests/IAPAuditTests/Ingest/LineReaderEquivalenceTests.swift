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

/// The fast JSON Lines readers give exactly what the strict readers give — every record, value and
/// rejection — on every JSON Lines input we have and on lines built to sit on each rule's edge; they
/// only decide speed (a line they are not sure of goes to the strict reader).
final class LineReaderEquivalenceTests: XCTestCase {
    /// Reads `data` both ways and asserts the results are the same; returns how many lines the fast
    /// path left to the strict reader.
    @discardableResult
    private func assertSameBothWays(_ data: Data, path: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let fast = FileImporter.read(InputFile(path: path, data: data))
        let strictLines = fast.strictLines
        let strict = FileImporter.read(InputFile(path: path, data: data), fastPath: false)
        XCTAssertEqual(fast.kind, strict.kind, path, file: file, line: line)
        XCTAssertEqual(fast.format, strict.format, path, file: file, line: line)
        XCTAssertEqual(fast.recordsIn, strict.recordsIn, path, file: file, line: line)
        XCTAssertEqual(fast.clientReports, strict.clientReports, path, file: file, line: line)
        XCTAssertEqual(fast.serverRequests, strict.serverRequests, path, file: file, line: line)
        XCTAssertEqual(fast.appleRecords.count, strict.appleRecords.count, path, file: file, line: line)
        for (a, b) in zip(fast.appleRecords, strict.appleRecords) {
            XCTAssertEqual(a, b, "\(a.location)", file: file, line: line)
        }
        XCTAssertEqual(fast.rejections, strict.rejections, path, file: file, line: line)
        return strictLines
    }

    private func lines(_ first: String, _ variants: [String]) -> Data { Data(([first] + variants).joined(separator: "\n").utf8) }

    // MARK: Real inputs

    func testSampleDataReadsTheSameAndMostlyFast() throws {
        let folder = TestPaths.repoRoot + "/sample-data"
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".jsonl") {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            let strictLines = assertSameBothWays(data, path: name)
            let count = data.split(separator: 10).count
            // Signed records (JWS: a signature to check) have no fast reader: the strict reader's by design.
            guard ["client.jsonl", "server.jsonl", "verify.jsonl"].contains(name) else { continue }
            XCTAssertLessThan(strictLines * 20, count, "\(name): \(strictLines) of \(count) lines left to the strict reader")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 3)
    }

    func testEveryRealDataFileReadsTheSame() throws {
        let root = try TestPaths.realData
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter {
            !$0.hasSuffix(".md")
        }
        var checked = 0
        for relative in files.sorted() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            assertSameBothWays(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)), path: relative)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60)
    }

    /// A month made by the benchmark's generator (`../shared/bench/gen.py`, stdlib Python).
    func testGeneratedMonthReadsTheSameAndFast() throws {
        let generator = TestPaths.repoRoot + "/../shared/bench/gen.py"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: generator), "needs ../shared/bench/gen.py")
        let out = TestPaths.scratch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", generator, "--n", "3000", "--seed", "7", "--out", out]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/" + name))
            XCTAssertEqual(assertSameBothWays(data, path: name), 0, "\(name): every generated line is read by the fast path")
        }
    }

    // MARK: Lines on the edges

    func testClientReportEdges() {
        let ok = #"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","transaction_id":"1","state":"purchased"}"#
        var variants: [String] = []
        for ts in [
            #""2026-10-01T00:00:00.123Z""#, #""2026-10-01 00:00:00""#, #""2026-10-01T00:00:00+02:00""#, "1790812800000",
            #""1790812800000""#, "-5", "1e3", "1.5", #""""#, "null", #"" 2026-10-01T00:00:00Z ""#, #""2026-02-30T00:00:00Z""#,
            #""2200-01-02T00:00:00Z""#, #""2026-10-01 00:00:00 Etc/GMT""#, #""2026-03-08 02:30:00 America/Los_Angeles""#,
            #""2026-11-01 01:30:00 America/Los_Angeles""#, #""2026-10-01T24:00:00Z""#, #""2026-10-01T00:00:60Z""#,
            "99999999999999999999", #""+1790812800000""#, "true", "[1]",
        ] {
            variants.append(#"{"ts":\#(ts),"user_id":"u1","transaction_id":"1","state":"purchased"}"#)
        }
        for id in [
            "123", #""0123""#, "-1", "1.0", "2e15", #""2.00000041234568E+15""#, #""2E5""#, #""9e9a""#, #""""#, "null", "true", "[1]",
            #"{"a":1}"#, #""a\u0000b""#, #""with \"quote\"""#, #""é""#, #""\u00e9""#, "\"\(String(repeating: "9", count: 5000))\"",
            "18446744073709551616", #""9223372036854775808""#, #""2000000400594084.0""#, #""2000000400594084.""#, "2000000400594084.0",
            #""2.000000400594084e+15""#, #""1790812800.25""#, #""12-34""#, #""1e""#,
        ] {
            variants.append(#"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","transaction_id":\#(id),"state":"purchased"}"#)
        }
        variants += [
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u\u00e9","transaction_id":"1","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"ü","transaction_id":"1","state":"PURCHASED"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","state":"restored"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","transaction_id":null,"state":"failed","error_code":"2"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","transaction_id":null,"state":"deferred","error_code":"x"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchasing","quantity":0}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","quantity":"2"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","quantity":1.5}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","quantity":-1,"error_code":2}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","transaction_id":"2","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased",}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","x":[[[[{"y":[1,2,{"z":null}]}]]]]}"#,
            "  \t" + ok + " \t",
            "[" + ok + "]",
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","deep":"# + String(repeating: "[", count: 70)
                + String(repeating: "]", count: 70) + "}",
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","bad":"\x"}"#,
            "{\"ts\":\"2026-10-01T00:00:00Z\",\"transaction_id\":\"1\",\"state\":\"purchased\",\"u\":\"\u{1}\"}",
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","n":01}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","n":-}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","n":tru}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","s":"\ud83d\ude00"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased"} trailing"#,
            "not json",
        ]
        assertSameBothWays(lines(ok, variants), path: "client.jsonl")
        var invalidUTF8 = Data(ok.utf8)
        invalidUTF8.append(contentsOf: [10])
        invalidUTF8.append(
            contentsOf: Array(#"{"ts":"2026-10-01T00:00:00Z","transaction_id":"1","state":"purchased","s":""#.utf8) + [0xC3, 0x28]
                + Array(#""}"#.utf8))
        assertSameBothWays(invalidUTF8, path: "client.jsonl")
    }

    func testServerLogEdges() {
        let ok = #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","user_id":"u1","transaction_ids":["1"],"granted":true}"#
        var variants: [String] = []
        for ids in [
            #"["1","2"]"#, "[1,2]", #""1;2""#, "[]", #"[""]"#, "[null]", #"["a\"b"]"#, #"["é"]"#, "5", #"["1","1"]"#, #"[" 1"]"#,
            #"["1e5"]"#, "[1.5]", "[true]", "null", #"{"a":1}"#,
        ] {
            variants.append(#"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","user_id":"u1","transaction_ids":\#(ids),"granted":true}"#)
        }
        for (key, values) in [
            ("credited_transaction_ids", ["null", "[]", #"["1"]"#, #""1""#]),
            ("granted", ["true", #""true""#, #""1""#, "1", #""TRUE""#, "null", #""""#, #""0""#]),
            ("event", [#""revoke""#, #""""#, #""verify""#, #""other""#, "null", "1"]),
            ("restore", [#""false""#, "0", "null", "true", #""yes""#]),
            ("verify_status", [#""0""#, "0", "null", #""x""#, "21007", "-1", #""""#, "1.0"]),
            ("latency_ms", ["-1", #""5""#, "5.5", "0", "null"]),
            ("environment", [#""""#, #""Sandbox""#, "null", "1"]),
            ("receipt_sha256", [#""""#, #""ab""#, "12"]),
            // DEL in a long id: past the fast reader's 8-byte scan (the fuzz driver found it read fast, rejected strictly).
            ("device_id", ["null", #""9e3""#, #""d1""#, "\"CA417BC3-D5AD-4461-8C5A-\u{7F}A7C55AAA059\"", "\"d\u{7F}\""]),
        ] {
            for value in values {
                variants.append(
                    #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","user_id":"u1","transaction_ids":["1"],"granted":false,"\#(key)":\#(value)}"#
                        .replacingOccurrences(of: #","granted":false,"granted""#, with: #","granted""#))
            }
        }
        variants += [
            #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","transaction_ids":["1"],"event":"revoke"}"#,
            #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","transaction_ids":["1"]}"#,
            #"{"ts":"2026-10-01T00:00:00Z","request_id":"","transaction_ids":["1"],"granted":true}"#,
            #"{"ts":"2026-10-01T00:00:00Z","request_id":7,"transaction_ids":["1"],"granted":true}"#,
            #"{"request_id":"r1","transaction_ids":["1"],"granted":true}"#,
        ]
        assertSameBothWays(lines(ok, variants), path: "server.jsonl")
    }

    func testVerifyResponseEdges() {
        let ok =
            #"{"request_id":"r1","received_at":"2026-10-01T00:00:01Z","response":{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[{"transaction_id":"1"}]}}}"#
        func wrap(_ body: String) -> String { #"{"request_id":"r1","received_at":"2026-10-01T00:00:01Z","response":\#(body)}"# }
        let item = #""transaction_id":"1","original_transaction_id":"1","product_id":"p""#
        var bodies = [
            #"{"status":"0"}"#, #"{"status":"21007"}"#, #"{"environment":"Sandbox"}"#, #"{"status":1.5}"#, #"{"status":null}"#,
            #"{"status":0,"receipt":"x"}"#, #"{"status":0,"receipt":null}"#, #"{"status":0,"receipt":{"in_app":null}}"#,
            #"{"status":0,"receipt":{"in_app":{\#(item)}}}"#, #"{"status":0,"receipt":{"in_app":[1]}}"#,
            #"{"status":0,"receipt":{"in_app":"x"}}"#, #"{"status":0,"latest_receipt_info":{\#(item)}}"#,
            #"{"status":0,"receipt":{"in_app":[{\#(item)}]},"latest_receipt_info":[{"transaction_id":"1","cancellation_date_ms":"1790899200000","quantity":"1"}]}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":1}]}}"#, #"{"status":0,"receipt":{"in_app":[{"product_id":"p"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date_ms":1790812800000}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date_ms":"1790812800000"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date_ms":"","purchase_date":"2026-10-01 00:00:00 Etc/GMT"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date_pst":"2026-10-01 00:00:00 America/Los_Angeles"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date":"soon"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","purchase_date_ms":"1.5"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","expires_date_formatted":"2026-10-01 00:00:00 Etc/GMT"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","expires_date":"1790812800000"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","cancellation_date":"2026-10-02 00:00:00 Etc/GMT","cancellation_reason":"0"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","is_trial_period":"false","web_order_line_item_id":1000000012345}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","is_trial_period":"maybe"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","in_app_ownership_type":"FAMILY_SHARED","quantity":"x"}]}}"#,
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1"},{"transaction_id":"1","product_id":"p"},{"transaction_id":"2"}]}}"#,
            #"{"status":0,"receipt":{"bid":"b","receipt_type":"ProductionSandbox","in_app":[]}}"#,
            #"{"status":0,"receipt":{"bundle_id":null,"bid":"b"}}"#,
            #"{"status":21199,"is-retryable":"false","is_retryable":true}"#, #"{"status":21199,"is_retryable":"1"}"#,
            #"{"status":0,"pending_renewal_info":[{"original_transaction_id":"1","auto_renew_status":"1","grace_period_expires_date_ms":"1790812800000"}]}"#,
            #"{"status":0,"pending_renewal_info":{"original_transaction_id":"1","expiration_intent":"x"}}"#,
            #"{"status":0,"signedTransactions":["x"]}"#, #"{"errorCode":4040010,"errorMessage":"x"}"#, #"{"status":0,"errorCode":1}"#,
            #"{"status":0,"receipt":{"bid":"b","transaction_id":"1","product_id":"p","purchase_date":"2011-02-17 06:20:57 Etc/GMT"}}"#,
            #"{"status":0,"latest_expired_receipt_info":{"transaction_id":"1"}}"#,
            #"{"status":0,"environment":"sandbox","receipt":{"in_app":[{"transaction_id":"\u0031"}]}}"#,
        ]
        bodies.append(
            #"{"status":0,"receipt":{"in_app":["# + (1...300).map { #"{"transaction_id":"\#($0)"}"# }.joined(separator: ",") + "]}}")
        bodies.append(Self.longHistory)
        var variants = bodies.map(wrap)
        variants += [
            #"{"request_id":"r1","response":{"status":0}}"#, #"{"request_id":"r1","received_at":"x","response":{"status":0}}"#,
            #"{"request_id":"","received_at":"2026-10-01T00:00:01Z","response":{"status":0}}"#,
            #"{"request_id":"r1","received_at":"2026-10-01T00:00:01Z","response":"x"}"#,
        ]
        assertSameBothWays(lines(ok, variants), path: "verify.jsonl")
        let bare = #"{"status":0,"environment":"Production","receipt":{"in_app":[{"transaction_id":"1"}]}}"#
        assertSameBothWays(
            lines(bare, bodies + [#"{"status":0,"request_id":"r1"}"#, #"{"status":0,"state":"purchased"}"#]), path: "bare.jsonl")
    }

    /// A long purchase history (300 in `in_app`, 80 in `latest_receipt_info`, 40 of them listed in both
    /// and merged, in a different order): past the one-by-one search, same result, still read fast.
    private static let longHistory =
        #"{"status":0,"receipt":{"in_app":["# + (1...300).map { #"{"transaction_id":"\#($0)","product_id":"p"}"# }.joined(separator: ",")
        + #"]},"latest_receipt_info":["#
        + (261...340).reversed().map { #"{"transaction_id":"\#($0)","cancellation_date_ms":"1790899200000"}"# }
        .joined(separator: ",") + "]}"

    func testLongPurchaseHistoryIsReadFast() {
        let data = Data(#"{"request_id":"r1","received_at":"2026-10-01T00:00:01Z","response":\#(Self.longHistory)}"#.utf8)
        XCTAssertEqual(assertSameBothWays(data, path: "verify.jsonl"), 0)
        let items = FileImporter.read(InputFile(path: "verify.jsonl", data: data)).appleRecords.first?.items ?? []
        XCTAssertEqual(items.count, 340)
        XCTAssertEqual(items.map(\.transactionId).prefix(3), ["1", "2", "3"])
        XCTAssertEqual(items[299].sections, ["in_app", "latest_receipt_info"])
        XCTAssertEqual(items[299].productId, "p")
        XCTAssertEqual(items[299].cancellationDateMs, 1_790_899_200_000)
        XCTAssertEqual(items[300].transactionId, "340", "first listed in latest_receipt_info, newest first")
        XCTAssertEqual(items[300].sections, ["latest_receipt_info"])
    }

    /// A batch of lines ends at `batchBytes` whatever its line count, so long lines cannot grow it.
    func testLineBatchesAreBoundedInBytes() {
        let line = String(repeating: "x", count: 99)
        let file = InputFile(path: "a", data: Data(Array(repeating: line, count: 10).joined(separator: "\n").utf8))
        var sizes: [Int] = []
        file.forEachLineRangeBatch(batchSize: 8, batchBytes: 250) { _, lines, _ in
            sizes.append(lines.count)
            return true
        }
        XCTAssertEqual(sizes, [3, 3, 3, 1])
        sizes = []
        file.forEachLineBatch(batchSize: 2, batchBytes: 250) { lines, _ in
            sizes.append(lines.count)
            return true
        }
        XCTAssertEqual(sizes, [2, 2, 2, 2, 2])
    }

    func testTimestampsReadFastAreTheStrictOnes() {
        var texts = [
            "2026-10-01T00:00:00Z", "2026-10-01T00:00:00.5Z", "2026-10-01T00:00:00.123456Z", "2026-10-01 00:00:00",
            "2026-10-01 00:00:00 Etc/GMT", "2026-03-08 02:30:00 America/Los_Angeles", "2026-11-01 01:30:00 America/Los_Angeles",
            "1900-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "2200-01-01T00:00:00Z", "2200-01-01T00:00:00.001Z", "0", "-0",
            "-2208988800000", "-2208988800001", "7258118400000", "7258118400001", "123456789012345678", "1234567890123456789",
            "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2026-10-01T00:00:00+00:00", "2026-10-01T00:00:00.Z", "",
        ]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let ms = Int64.random(in: -2_300_000_000_000...7_300_000_000_000, using: &random)
            texts.append(String(ms))
            let iso = Timestamp.iso(ms)
            texts.append(iso)
            texts.append(String(iso.dropLast(5)).replacingOccurrences(of: "T", with: " ") + " America/Los_Angeles")
            texts.append(String(iso.dropLast(5)).replacingOccurrences(of: "T", with: " ") + " Etc/GMT")
        }
        for text in texts {
            var text = text
            let fast = text.withUTF8 { Timestamp.fastParseMs($0) }
            if let fast { XCTAssertEqual(fast, Timestamp.parseMs(text), text) }
        }
    }
}
