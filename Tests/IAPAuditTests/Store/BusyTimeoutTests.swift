import Foundation
import XCTest

@testable import IAPAuditStore

/// A trace's connections wait for another's lock as long as another trace's index build may hold it (its commit
/// locks readers out): a trace's read meeting a writer that holds the lock 6 s reads after it, instead of failing
/// with "database is locked" at SQLite's 5 s.
final class BusyTimeoutTests: XCTestCase {
    /// The writer's connection, handed to the thread that commits (it is used there alone).
    final class Held: @unchecked Sendable {
        let database: SQLiteDatabase
        init(_ database: SQLiteDatabase) { self.database = database }
    }

    func testATraceReadWaitsForAnIndexBuildHoldingTheLockSixSeconds() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        try FileManager.default.copyItem(atPath: TraceLostOrderTests.caseFolder + "/client.jsonl", toPath: input + "/client.jsonl")
        XCTAssertEqual(CLIRun(["run", input, "--out", out]).status, 0)
        let path = out + "/audit.sqlite"
        // Another trace committing its indexes: the exclusive lock, held 6 s.
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("BEGIN EXCLUSIVE; CREATE INDEX held_meanwhile ON client_report (user_id);")
        let held = Held(writer)
        Thread {
            usleep(6_000_000)
            try! held.database.execute("COMMIT")
        }.start()
        let start = Date()
        let missing = try TraceReader.missingIndexes(ledgerPath: path)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 5.5, "it waited for the writer")
        XCTAssertEqual(missing, Schema.traceIndexNames)
    }
}
