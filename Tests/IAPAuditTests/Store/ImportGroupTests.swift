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

/// Many small files: imported in groups sharing one transaction, mapped a few at a time (a folder of
/// more files than the kernel allows mappings must import), each file's failure undone alone.
final class ImportGroupTests: XCTestCase {
    private func dump(_ path: String) throws -> [String] { try PythonReader.run(IdempotencyTests.dumpScript, args: [path]) as! [String] }

    private func client(_ i: Int) -> String {
        #"{"ts":"2026-10-01T00:00:00Z","user_id":"u\#(i)","transaction_id":"\#(1_000_000 + i)","state":"purchased"}"#
    }

    /// 700 files: more than two groups (256 files each) and far more than the prefetcher's window.
    /// Every file is imported once, with its own records; a second run changes nothing.
    func testManySmallFilesAreImportedInGroupsAndARerunChangesNothing() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        // Dated an hour back: their stats are trusted at once (IdempotencyTests.agedAnHour says why).
        let hourAgo = Date().addingTimeInterval(-3600)
        for i in 0..<700 {
            let path = input + "/c\(String(format: "%04d", i)).jsonl"
            TestPaths.write(client(i), to: path)
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: path)
        }
        let first = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(first.filesParsed, 700)
        XCTAssertEqual(first.snapshot.files.map(\.recordsImported), Array(repeating: 1, count: 700))
        XCTAssertEqual(first.snapshot.findings.counts.map(\.count), [700], "every purchase never sent")
        let before = try dump(out + "/audit.sqlite")
        let second = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(second.filesParsed, 0)
        XCTAssertEqual(try dump(out + "/audit.sqlite"), before)
    }

    /// Inside a group (one transaction), a file's import that fails is undone alone (a savepoint); the
    /// group's other files are committed with it; a group undone as a whole leaves nothing.
    func testAFailureInsideAGroupIsUndoneAloneAndAnAbandonedGroupLeavesNothing() throws {
        let path = TestPaths.scratch() + "/audit.sqlite"
        let store = try AuditStore(path: path)
        func bring(_ name: String, failing: Bool = false) throws {
            struct Boom: Error {}
            let file = InputFile(path: name, data: Data(client(1).utf8))
            _ = try store.importStreaming(
                path: name,
                read: { sink in
                    let result = try FileImporter.stream(file, checker: NoSignatureChecking(), sink: sink)
                    if failing { throw Boom() }
                    return result
                }, keep: { _ in false })
        }
        try store.transaction {
            try bring("a.jsonl")
            XCTAssertThrowsError(try bring("b.jsonl", failing: true))
            try bring("c.jsonl")
        }
        XCTAssertEqual(try store.storedFiles().keys.sorted(), ["a.jsonl", "c.jsonl"])

        struct Stop: Error {}
        XCTAssertThrowsError(
            try store.transaction {
                try bring("d.jsonl")
                throw Stop()
            })
        XCTAssertEqual(try store.storedFiles().keys.sorted(), ["a.jsonl", "c.jsonl"])
        XCTAssertEqual(try AuditStore(path: path).storedFiles().keys.sorted(), ["a.jsonl", "c.jsonl"], "as another connection sees it")
    }

    /// Groups close at 256 files or 8 MB, and a file of 8 MB or more is a group of its own.
    func testGroupsCloseAtTheirLimitsAndABigFileStandsAlone() {
        let groups = ImportGroups.of(Array(repeating: 10, count: 300) + [8 << 20, 3 << 20, 3 << 20, 3 << 20, 0])
        XCTAssertEqual(groups.map(\.range), [0..<256, 256..<300, 300..<301, 301..<303, 303..<305])
        XCTAssertEqual(groups.map(\.isLarge), [false, false, true, false, false])
    }
}
