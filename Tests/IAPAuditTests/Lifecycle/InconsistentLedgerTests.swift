import Foundation
import XCTest

@testable import IAPAuditModel

/// A ledger that disagrees with itself about a file (issue 27, attack d): the run names the file and its repair, never
/// SQLite's error, and the repair (`--reread FILE`) loses nothing.
final class InconsistentLedgerTests: XCTestCase {
    static let readLedger = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps({
            "findings": [list(r) for r in db.execute("SELECT finding_id, reason, user_ids FROM finding ORDER BY finding_id")],
            "counts": [db.execute("SELECT count(*) FROM " + t).fetchone()[0] for t in ("server_request", "rejection")]}))
        """

    /// The stored size of server.jsonl (and its hash) cut back to its 1,000th line, as a run that stored a stat taken
    /// before it read the lines appended after it left it: the grown log's new part would store lines 1,001… again.
    static let cutStoredSize = """
        import hashlib, sqlite3, sys
        db, path = sqlite3.connect(sys.argv[1]), sys.argv[2]
        data = open(path, 'rb').read()
        end = 0
        for _ in range(1000): end = data.index(b'\\n', end) + 1
        db.execute("UPDATE source_file SET bytes = ?, sha256 = ?, content_sha256 = NULL, mtime_ns = 0, inode = 0 WHERE path = ?",
                   (end, hashlib.sha256(data[:end]).hexdigest(), path))
        db.commit()
        print('[]')
        """

    func testAStoredSizeShortOfTheStoredLinesNamesTheFileAndRereadRepairsIt() throws {
        let (input, out) = try scratchSample()
        let config = TestPaths.repoRoot + "/sample-data/config.json"
        let log = input + "/server.jsonl"
        let run = { (extra: [String]) in CLIRun(["run", input, "--out", out, "--config", config] + extra) }
        XCTAssertEqual(run([]).status, 0)
        _ = try PythonReader.run(Self.cutStoredSize, args: [out + "/audit.sqlite", log])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        let late =
            #"{"ts":"2026-10-31T00:00:00Z","request_id":"late-1","user_id":"u1","transaction_ids":["2000000400594870"],"#
            + #""restore":false,"verify_status":0,"environment":"Production","granted":false,"latency_ms":754}"#
        try handle.write(contentsOf: Data((late + "\n").utf8))
        try handle.close()

        for _ in 1...2 {
            let failed = run([])
            XCTAssertEqual(failed.status, 1, failed.out)
            XCTAssertFalse(failed.err.contains("SQLite") || failed.err.contains("UNIQUE"), failed.err)
            XCTAssertEqual(
                failed.err,
                "iap-audit: \(log): error: the ledger's records of this file are inconsistent: its stored size ends at line 1000, "
                    + "but the ledger holds its line 1904; this run stored nothing. Repair: run again with --reread \(log) (the ledger "
                    + "reads the file again from its first line and replaces its records: nothing is lost)")
        }
        let repaired = run(["--reread", log])
        XCTAssertEqual(repaired.status, 0, repaired.err)
        XCTAssertEqual(run([]).status, 0)
        let after = try PythonReader.run(Self.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
        let fresh = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: fresh) }
        XCTAssertEqual(CLIRun(["run", input, "--out", fresh, "--config", config]).status, 0)
        let once = try PythonReader.run(Self.readLedger, args: [fresh + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual("\(after["counts"]!)", "[1905, 0]")
        XCTAssertEqual("\(after["findings"]!)", "\(once["findings"]!)")

        let unknown = run(["--reread", input + "/nothing.jsonl"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.err.contains("--reread: not a file this run reads"), unknown.err)
    }
}
