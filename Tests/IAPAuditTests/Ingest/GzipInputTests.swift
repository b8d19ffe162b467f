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

/// Gzip inputs are read by their content's reader, every record accounted for: per file here (the
/// scenario with its findings is `Fixtures/cases/gzip-compressed-inputs`, the messages are in the
/// error catalogue as `gzip-*`).
final class GzipInputTests: XCTestCase {
    static var caseFolder: String { FixtureCaseTests.casesFolder + "/gzip-compressed-inputs" }

    func read(_ data: Data, path: String, scratch: String? = nil) -> ImportedRecords {
        var batches: [RecordBatch] = []
        let sink = RecordSink { batches.append($0) }
        let file = InputFile(path: path, data: data)
        let summary = try! FileImporter.stream(file, checker: NoSignatureChecking(), sink: sink, scratchDirectory: scratch)
        var result = ImportedRecords(file: summary)
        for batch in batches {
            result.records.clientReports += batch.clientReports.map { batch.clientReport($0, file: path) }
            result.records.serverRequests += batch.serverRequests.map { batch.serverRequest($0, file: path) }
            result.records.appleRecords += batch.appleRecords.map { batch.appleRecord($0, file: path) }
            result.rejections += batch.rejections
        }
        return result
    }

    /// `gzip -n` of `text`, through the gzip command line (zlib stays behind IAPAuditIngest).
    func gzip(_ text: String) throws -> Data {
        let folder = TestPaths.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/in"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-n", folder + "/in"]
        try process.run()
        process.waitUntilExit()
        return try Data(contentsOf: URL(fileURLWithPath: folder + "/in.gz"))
    }

    func testEachFixtureIsReadByItsContentAndAccountedFor() throws {
        let expected: [(name: String, kind: SourceKind, format: SourceFormat, note: String, counts: [Int])] = [
            ("client.jsonl.gz", .clientReport, .jsonLines, "gzip: client reports", [2, 2, 0]),
            ("server.csv.gz", .serverLog, .csv, "gzip: server transaction log", [2, 2, 0]),
            ("verify.jsonl.gz", .verifyResponse, .jsonLines, "gzip: verifyReceipt responses linked to server requests", [2, 2, 0]),
            (
                "apple-response.json.gz", .verifyResponse, .jsonDocument, "gzip: verifyReceipt responses (bare, not linked to a request)",
                [1, 1, 0]
            ),
            (
                "client-resent-truncated.jsonl.gz", .clientReport, .jsonLines, "gzip: client reports (archive truncated after line 3)",
                [4, 3, 1]
            ),
        ]
        for file in expected {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.caseFolder + "/" + file.name))
            let result = read(data, path: file.name)
            XCTAssertEqual(result.kind, file.kind, file.name)
            XCTAssertEqual(result.format, file.format, file.name)
            XCTAssertEqual(result.status, .imported, file.name)
            XCTAssertEqual(result.note, file.note, file.name)
            XCTAssertEqual([result.recordsIn, result.recordsImported, result.recordsRejected], file.counts, file.name)
            XCTAssertEqual(result.recordsIn, result.recordsImported + result.recordsRejected, file.name)
            // Keyed by the bytes on disk.
            XCTAssertEqual(result.sha256, InputFile.sha256Hex(data), file.name)
            XCTAssertEqual(result.bytes, data.count, file.name)
        }
        let concatenated = read(try Data(contentsOf: URL(fileURLWithPath: Self.caseFolder + "/verify.jsonl.gz")), path: "v.gz")
        XCTAssertEqual(concatenated.appleRecords.map(\.location.line), [1, 2], "two members, one stream")
    }

    /// Known by its magic bytes, not its name; nothing is left in the scratch folder.
    func testDetectedByContentAndLeavesNothingBehind() throws {
        let scratch = TestPaths.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let data = try gzip("ts,user_id,transaction_id,state\n1790812800000,u1,1,purchased\n")
        let result = read(data, path: "export.log", scratch: scratch)
        XCTAssertEqual(result.kind, .clientReport)
        XCTAssertEqual(result.clientReports.map(\.transactionId), ["1"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch), [])
        XCTAssertEqual(read(try gzip(""), path: "empty.gz").note, "gzip: empty file")
    }

    /// Cut anywhere, a long archive is read up to its last complete line and the rest is one
    /// rejection: records in = imported + rejected, never a line half-counted.
    func testTruncatedAnywhereEveryLineIsAccountedFor() throws {
        let line = { (i: Int) in
            #"{"ts": "2026-10-01T09:00:00Z", "user_id": "u\#(i % 97)", "transaction_id": "20000004\#(i)", "state": "purchased"}"#
        }
        let text = (0..<20_000).map(line).joined(separator: "\n") + "\n"
        let data = try gzip(text)
        XCTAssertEqual(read(data, path: "c.gz").recordsImported, 20_000)
        for cut in [30, data.count / 3, data.count / 2, data.count - 9] {
            let result = read(data.prefix(cut), path: "c.gz")
            XCTAssertEqual(result.recordsIn, result.recordsImported + result.recordsRejected, "cut \(cut)")
            XCTAssertEqual(result.rejections.count, 1, "cut \(cut)")
            let rejection = try XCTUnwrap(result.rejections.first)
            XCTAssertEqual(rejection.location.line, result.recordsImported + 1, "cut \(cut)")
            XCTAssertTrue(rejection.reason.hasPrefix("gzip archive truncated (it ends before the end of its gzip stream"), rejection.reason)
            XCTAssertEqual(result.clientReports.map(\.transactionId), (0..<result.recordsImported).map { "20000004\($0)" }, "cut \(cut)")
        }
    }

    /// Zero bytes after the last member are padding; other bytes there are said, every line being read.
    func testBytesAfterTheGzipData() throws {
        let data = try gzip("ts,user_id,transaction_id,state\n1790812800000,u1,1,purchased\n")
        XCTAssertEqual(read(data + Data(count: 512), path: "p.gz").rejections.count, 0)
        let garbage = read(data + Data("trailing".utf8), path: "g.gz")
        XCTAssertEqual(garbage.clientReports.count, 1)
        XCTAssertEqual(
            garbage.rejections.map { "\($0.location.line): \($0.reason)" },
            [
                "3: gzip archive corrupt (8 bytes after the end of its gzip data are not gzip): every line before this one was read; those bytes were not"
            ])
    }
}
