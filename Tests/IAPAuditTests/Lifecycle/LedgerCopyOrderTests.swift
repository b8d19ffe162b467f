import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// A copy of a stored file delivered under a name that sorts before it (`server-again.jsonl` beside
/// `server.jsonl`): the stored file stays as it was, the copy is the one skipped, no record is written again
/// (found by an on-call user test).
final class LedgerCopyOrderTests: XCTestCase {
    func testTheStoredFileWinsOverANewCopy() throws {
        let (input, out) = try scratchSample()
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        let first = try AuditPipeline.run(options)
        try FileManager.default.copyItem(atPath: input + "/server.jsonl", toPath: input + "/server-again.jsonl")
        let second = try AuditPipeline.run(options)
        let byPath = Dictionary(uniqueKeysWithValues: second.snapshot.files.map { ($0.path, $0) })
        XCTAssertEqual(byPath[input + "/server.jsonl"]?.status, "imported")
        XCTAssertEqual(byPath[input + "/server-again.jsonl"]?.status, "skipped")
        XCTAssertEqual(byPath[input + "/server-again.jsonl"]?.note, "same content as \(input)/server.jsonl (not counted twice)")
        XCTAssertEqual(second.snapshot.recordCounts, first.snapshot.recordCounts)
        XCTAssertEqual(second.snapshot.changes?.repeated, true, "nothing changed: a re-run")
        let ids =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT min(record_id) >> 32, count(*) FROM server_request").fetchone()))
                """, args: [out + "/audit.sqlite"]) as? [Int]
        let stored =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT file_id FROM source_file WHERE path = ?", (sys.argv[2],)).fetchone()))
                """, args: [out + "/audit.sqlite", input + "/server.jsonl"]) as? [Int]
        XCTAssertEqual(ids?.first, stored?.first, "the server log's records are still the stored file's")
        XCTAssertEqual(ids?.last, 1904)
    }

    /// A copy delivered again is told the night it comes (found at 1M: a re-run — the copy changes no finding — listed
    /// nothing, and the following nights listed the copy as new, every night): the re-run's summary lists it, and the
    /// next run does not.
    func testACopyIsListedTheNightItComesAndNotAgain() throws {
        let (input, out) = try scratchSample()
        let options = AuditOptions(paths: [input], outputDirectory: out)
        _ = try AuditPipeline.run(options)
        try FileManager.default.copyItem(atPath: input + "/server.jsonl", toPath: input + "/resend.jsonl")
        let copied = RunSummary.text(try AuditPipeline.run(options))
        XCTAssertTrue(
            copied.contains(
                "Inputs (4 files; 1 new or changed since run 1, listed; the other 3 as an earlier run read them: the workbook's Summary "
                    + "and --json list every file):\n  \(input)/resend.jsonl  skipped: same content as \(input)/server.jsonl (not counted twice)\n"
            ), copied)
        XCTAssertTrue(copied.contains("Changes: run 1 again (the same inputs and parameters: nothing recorded)"), copied)
        // New split as the alert counts it (problems; info never alerts; 10 purchases at the edge of the logs are pending, rule 26).
        XCTAssertTrue(copied.contains("\n  571 new (533 problems, 38 info), 0 still open, 0 resolved, 0 reopened\n"), copied)
        let next = RunSummary.text(try AuditPipeline.run(options))
        XCTAssertTrue(next.contains("Inputs (4 files; 0 new or changed since run 1, listed;"), next)
    }
}
