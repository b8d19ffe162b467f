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

/// Re-running changes nothing; changed and removed files are reflected; a failed import leaves
/// no partial rows and the next run completes it.
final class IdempotencyTests: XCTestCase {
    static let dumpScript = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps(list(db.iterdump())))
        """

    func dump(_ path: String) throws -> [String] { try PythonReader.run(Self.dumpScript, args: [path]) as! [String] }

    func writeInputs(_ dir: String) {
        TestPaths.write(
            """
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "product_id": "p", "state": "purchased"}
            {"ts": "2026-10-01T00:00:01Z", "user_id": "u2", "transaction_id": "200", "product_id": "p", "state": "purchased"}
            """, to: dir + "/client.jsonl")
        TestPaths.write(
            """
            {"ts": "2026-10-01T00:00:02Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["100"], "granted": true, "verify_status": 0}
            {"ts": "2026-10-01T00:00:03Z", "request_id": "r2", "user_id": "u2", "transaction_ids": ["100"], "granted": true, "verify_status": 0}
            """, to: dir + "/server.jsonl")
        TestPaths.write(
            """
            {"request_id": "r1", "received_at": "2026-10-01T00:00:02Z", "response": {"status": 0, "environment": "Production", "receipt": {"in_app": [{"transaction_id": "100"}]}}}
            broken line
            """, to: dir + "/verify.jsonl")
        TestPaths.write("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", to: dir + "/cert.pem")
    }

    /// The files of `dir` dated an hour back: their stats are trusted at once. (A file written just now has its stat
    /// stored by the first run that finds it 2 s old — on a slow machine the re-run — a cache, not a result:
    /// LedgerGrowsTests.)
    func agedAnHour(_ dir: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: dir + "/" + name)
        }
    }

    func testSecondRunGivesTheSameDatabase() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        writeInputs(input)
        try agedAnHour(input)
        let first = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(first.filesParsed, 4)
        let before = try dump(out + "/audit.sqlite")
        let second = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(second.filesParsed, 0, "unchanged files are not read again")
        XCTAssertEqual(try dump(out + "/audit.sqlite"), before)
        XCTAssertEqual(before.filter { $0.hasPrefix("INSERT INTO \"finding\"") }.count, 3)
    }

    /// The workbook of the same audit is the same bytes: its creation time is the as-of, not the
    /// clock (read from docProps/core.xml by Python's zipfile).
    func testSameAuditGivesTheSameWorkbookBytes() throws {
        let input = TestPaths.scratch()
        writeInputs(input)
        XCTAssertEqual(try workbookCreatedTwice(input), [["created", "2026-10-01T00:00:03Z"], ["modified", "2026-10-01T00:00:03Z"]])
    }

    /// With no timestamped record (as-of none) the creation time is a fixed instant, 1980-01-01 (the zip
    /// entries' own date), not the clock: the same audit is still the same bytes (found by a user).
    func testSameAuditWithoutAnAsOfGivesTheSameWorkbookBytes() throws {
        let created = try workbookCreatedTwice(
            try TestPaths.realData("gabrielgarza__monza/cancel.json"), asOf: "none (no timestamped record)")
        XCTAssertEqual(created, [["created", "1980-01-01T00:00:00Z"], ["modified", "1980-01-01T00:00:00Z"]])
    }

    /// Audits `input` into two fresh folders: the workbooks are the same bytes; their creation and
    /// modification times (read from docProps/core.xml by Python's zipfile).
    func workbookCreatedTwice(_ input: String, asOf: String? = nil) throws -> [[String]]? {
        let first = TestPaths.scratch(), second = TestPaths.scratch()
        let run = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: first))
        if let asOf { XCTAssertEqual(run.snapshot.parameters["as_of"], asOf) }
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: second))
        XCTAssertEqual(
            FileManager.default.contents(atPath: first + "/audit.xlsx"), FileManager.default.contents(atPath: second + "/audit.xlsx"))
        return try PythonReader.run(
            """
            import json, re, sys, zipfile
            core = zipfile.ZipFile(sys.argv[1]).read("docProps/core.xml").decode()
            print(json.dumps(re.findall(r"<dcterms:(created|modified)[^>]*>([^<]*)<", core)))
            """, args: [first + "/audit.xlsx"]) as? [[String]]
    }

    /// A changed file is read again; a removed one leaves the ledger with `--forget-missing` (by default it
    /// stays: `LedgerGrowsTests`).
    func testChangedAndRemovedFilesAreReflected() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        writeInputs(input)
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        TestPaths.write(
            """
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "product_id": "p", "state": "purchased"}
            """, to: input + "/client.jsonl")
        try FileManager.default.removeItem(atPath: input + "/verify.jsonl")
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.forgetMissing = true
        let result = try AuditPipeline.run(options)
        XCTAssertEqual(result.filesParsed, 1)
        XCTAssertEqual(
            result.snapshot.files.map { URL(fileURLWithPath: $0.path).lastPathComponent }, ["cert.pem", "client.jsonl", "server.jsonl"])
        XCTAssertEqual(result.snapshot.recordCounts["client_report"], 1)
        XCTAssertEqual(result.snapshot.recordCounts["apple_record"], 0)
        XCTAssertEqual(result.snapshot.recordCounts["rejection"], 0)
        XCTAssertEqual(
            (try result.snapshot.findings.all()).map { "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)" },
            ["duplicate_credit/cross_account/100", "invalid_credit/no_verify_response/100"])
    }

    func testSameContentUnderTwoPathsIsCountedOnce() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        writeInputs(input)
        try FileManager.default.copyItem(atPath: input + "/client.jsonl", toPath: input + "/copy.jsonl")
        try agedAnHour(input)
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let copy = try XCTUnwrap(result.snapshot.files.first { $0.path.hasSuffix("/copy.jsonl") })
        XCTAssertEqual(copy.status, "skipped")
        XCTAssertEqual(copy.note, "same content as \(input)/client.jsonl (not counted twice)")
        XCTAssertEqual(result.snapshot.recordCounts["client_report"], 2)
        let before = try dump(out + "/audit.sqlite")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(try dump(out + "/audit.sqlite"), before)
    }

    /// A skipped file stored by an older reader (another note) is classified again.
    func testSkippedFilesAreClassifiedAgain() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        writeInputs(input)
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let store = try AuditStore(path: out + "/audit.sqlite")
        try store.store(
            ImportedFile(
                file: InputFile(path: input + "/cert.pem", data: Data()), kind: .other, format: .none,
                status: .skipped, note: "an old reader's note"))
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(result.snapshot.files.first { $0.path.hasSuffix("cert.pem") }?.note, "PEM certificate (not evidence)")
    }

    /// A file whose import fails half-way leaves no rows; the next run imports it whole.
    func testFailedImportIsRolledBackAndCompletedNextRun() throws {
        let out = TestPaths.scratch()
        let store = try AuditStore(path: out + "/audit.sqlite")
        let input = InputFile(path: "x.jsonl", data: Data("{}".utf8))
        let response = AppleRecord(
            location: SourceLocation(file: "x.jsonl", line: 1), requestId: "r", receivedAtMs: nil,
            status: 0, environment: nil, isRetryable: nil, bundleId: nil, receiptType: nil,
            items: [AppleTransaction(transactionId: "1", sections: ["in_app"])], rawJSON: "{}")
        func importing(_ copies: Int) throws {
            _ = try store.importStreaming(
                path: input.path,
                read: { sink in
                    var file = ImportedFile(file: input, kind: .verifyResponse, format: .jsonLines, status: .imported, note: "")
                    for _ in 0..<copies {
                        var batch = RecordBatch()
                        batch.append(response, keepRaw: false)
                        file.recordsIn += 1
                        file.count(batch)
                        try sink.write(batch)
                    }
                    return file
                }, keep: { _ in false })
        }
        XCTAssertThrowsError(try importing(2), "the same line twice violates the key (file_id << 32 | line)")
        XCTAssertEqual(try store.storedFiles().count, 0)
        XCTAssertEqual(try store.snapshot().recordCounts["apple_transaction"], 0)
        try importing(1)
        XCTAssertEqual(try store.snapshot().recordCounts["apple_transaction"], 1)
    }
}
