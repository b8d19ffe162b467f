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

/// The store at rest is one file in a rollback journal; a run killed while another connection reads
/// (WAL) leaves a database the next open repairs; a file's facts go with it.
final class StoreLifecycleTests: XCTestCase {
    private func inputs(_ dir: String) {
        TestPaths.write(
            #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "state": "purchased"}"#, to: dir + "/client.jsonl")
        TestPaths.write(
            #"{"request_id": "r1", "received_at": "2026-10-01T00:00:02Z", "response": {"status": -5}}"#, to: dir + "/verify.jsonl")
    }

    private func query(_ path: String, _ sql: String) throws -> [[Any]] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            print(json.dumps([list(r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]))
            """, args: [path, sql]) as! [[Any]]
    }

    func testARunLeavesOneFileInARollbackJournal() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        inputs(input)
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(names, [".audit.lock", ".reconcile-carry", "audit.sqlite", "audit.xlsx"], "no WAL, no spill left behind")
        // What the next run need not compute again (RequestCarry), no half-written state.
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out + "/.reconcile-carry").sorted(),
            ["outputs.log", "requests.bin", "state.json"])
        XCTAssertEqual(try query(out + "/audit.sqlite", "PRAGMA journal_mode").first?.first as? String, "delete")
        // A negative status (not one Apple sends, but a number) is a record like any other.
        XCTAssertEqual(try query(out + "/audit.sqlite", "SELECT status FROM apple_record").first?.first as? Int, -5)
    }

    /// A run killed while reconciliation reads beside the index build: the files as they are at that
    /// moment (copied while the connection is open — what a kill leaves) open as a whole database.
    func testAStoreKilledInTheConcurrentStretchIsRepairedWhenOpened() throws {
        let folder = TestPaths.scratch(), killed = TestPaths.scratch()
        do {
            let store = try AuditStore(path: folder + "/audit.sqlite")
            try store.setRunParameter("run_status", "incomplete")
            try store.beginBulkImport()
            try store.beginConcurrentReads()
            try store.setRunParameter("a", "b")  // committed to the WAL
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("audit.sqlite") {
                try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: killed + "/" + name)
            }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: killed + "/audit.sqlite-wal"), "the kill left a WAL")
        let reopened = try AuditStore(path: killed + "/audit.sqlite")
        XCTAssertEqual(try reopened.runParameter("a"), "b", "what was committed to the WAL is kept")
        XCTAssertEqual(try reopened.runParameter("run_status"), "incomplete", "the next run says the previous one did not complete")
        XCTAssertEqual(try query(killed + "/audit.sqlite", "PRAGMA journal_mode").first?.first as? String, "delete")
        let indexes = try query(
            killed + "/audit.sqlite", "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'"
        )
        .compactMap { $0.first as? String }
        // The run's own; trace's indexes are the next trace's to make (docs/schema.md, Indexes).
        for name in Schema.indexNames where !Schema.traceIndexNames.contains(name) {
            XCTAssertTrue(indexes.contains(name), "\(name) made again")
        }
        for name in Schema.traceIndexNames { XCTAssertFalse(indexes.contains(name), "\(name) is trace's") }
    }

    func testARemovedFileTakesItsRecordsAndFactsAlong() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        inputs(input)
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let before = try query(out + "/audit.sqlite", "SELECT count(DISTINCT file_id) FROM fact_chunk")
        XCTAssertEqual(before.first?.first as? Int, 2)
        try FileManager.default.removeItem(atPath: input + "/verify.jsonl")
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.forgetMissing = true  // by default the ledger keeps it
        _ = try AuditPipeline.run(options)
        let rows = try query(
            out + "/audit.sqlite",
            """
            SELECT (SELECT count(*) FROM apple_record), (SELECT count(DISTINCT file_id) FROM fact_chunk),
                   (SELECT count(*) FROM fact_chunk WHERE file_id NOT IN (SELECT file_id FROM source_file))
            """)
        XCTAssertEqual(rows.first?.compactMap { $0 as? Int }, [0, 1, 0])
    }

    func testRecordKeysAreFileAndLine() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        inputs(input)
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let rows = try query(
            out + "/audit.sqlite",
            "SELECT record_id = (file_id << 32 | line), line FROM client_report UNION ALL SELECT record_id = (file_id << 32 | line), line FROM apple_record"
        )
        XCTAssertEqual(rows.map { $0.compactMap { $0 as? Int } }, [[1, 1], [1, 1]])
    }

    /// A database another program holds (a DB browser mid-write) stops the run with exit 1 and what
    /// to do, not the SQL that met the lock (after SQLite's 5 s busy wait).
    func testALockedDatabaseSaysWhatToDo() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        inputs(input)
        XCTAssertEqual(CLIRun(["run", input, "--out", out]).status, 0)
        let holder = try SQLiteDatabase(path: out + "/audit.sqlite")
        try holder.execute("BEGIN EXCLUSIVE")
        let run = CLIRun(["run", input, "--out", out])
        try holder.execute("ROLLBACK")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.err.components(separatedBy: "\n").last { !$0.isEmpty },
            "iap-audit: \(out)/audit.sqlite: error: cannot write output: SQLite error 5: database is locked"
                + " (another program has the database open and is writing it; close it and run again)")
        let constraint = SQLiteError(code: 19, message: "UNIQUE constraint failed", sql: "INSERT INTO t VALUES (1)")
        XCTAssertEqual(constraint.description, "SQLite error 19: UNIQUE constraint failed (in: INSERT INTO t VALUES (1))")
    }
}
