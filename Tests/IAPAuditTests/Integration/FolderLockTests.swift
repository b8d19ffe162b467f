import Foundation
import XCTest

@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// `trace` and a run on one ledger folder (docs/operations.md): a run waits for the traces reading the
/// ledger instead of failing the night, and a trace waits for the run writing it instead of reading a
/// ledger half-way through a run.
final class FolderLockTests: XCTestCase {
    /// The sample run into a scratch folder, and a lock on its `.audit.lock` held by this process (as a
    /// trace or a run of another process would) until `seconds` have passed.
    func ledger(holding mode: Int32, for seconds: Double) throws -> (out: String, sample: String) {
        let sample = TestPaths.repoRoot + "/sample-data", out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(CLIRun(["run", sample, "--out", out]).status, 0)
        let descriptor = open(out + "/.audit.lock", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(flock(descriptor, mode | LOCK_NB), 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { close(descriptor) }
        return (out, sample)
    }

    func testARunWaitsForATraceReadingItsLedger() throws {
        let (out, sample) = try ledger(holding: LOCK_SH, for: 1.5)
        let start = Date()
        let run = CLIRun(["run", sample, "--out", out])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 1.4, "it waited for the trace")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.xlsx"))
    }

    func testATraceWaitsForTheRunWritingItsLedger() throws {
        let (out, _) = try ledger(holding: LOCK_EX, for: 1.5)
        let start = Date()
        let trace = CLIRun(["trace", "2000000400594083", "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 1.4, "it waited for the run")
        XCTAssertTrue(
            trace.err.hasPrefix(
                "iap-audit: waiting for the run writing \(out) to finish (trace reads the ledger once it is complete)…"), trace.err)
        XCTAssertTrue(trace.out.contains("== transaction 2000000400594083"), trace.out)
    }

    /// Two traces at once: both read (the lock is shared), neither waits.
    func testTracesDoNotWaitForEachOther() throws {
        let (out, _) = try ledger(holding: LOCK_SH, for: 30)
        let start = Date()
        let trace = CLIRun(["trace", "u251", "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertFalse(trace.err.contains("waiting"), trace.err)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
    }

    /// A trace of a folder with no ledger, or of a folder or a text file given as --ledger, fails clearly and leaves no lock file
    /// there nor in the current folder (it reads; only a ledger's folder holds its lock).
    func testATraceWithoutALedgerLeavesNoLockFile() throws {
        let root = TestPaths.scratch(), empty = root + "/empty"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let noLedger = CLIRun(["trace", "MQ7K2XW9PL", "--out", empty])
        XCTAssertEqual(noLedger.status, 1)
        XCTAssertTrue(noLedger.err.contains("cannot read the ledger: no such file"), noLedger.err)
        let folder = CLIRun(["trace", "MQ7K2XW9PL", "--ledger", empty])
        XCTAssertEqual(folder.status, 1)
        XCTAssertTrue(folder.err.contains("a folder, not a ledger file"), folder.err)
        // Another kind of file given as --ledger (a customer's email saved beside the logs): its folder is no ledger's.
        try Data("From: customer\n".utf8).write(to: URL(fileURLWithPath: empty + "/email.txt"))
        let text = CLIRun(["trace", "MQ7K2XW9PL", "--ledger", empty + "/email.txt"])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.err.contains("cannot read the ledger: SQLite error 26: file is not a database"), text.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty), ["email.txt"])
        // Another program's SQLite database.
        try SQLiteDatabase(path: empty + "/other.db").execute("CREATE TABLE t (x)")
        let other = CLIRun(["trace", "MQ7K2XW9PL", "--ledger", empty + "/other.db"])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.err.contains("cannot read the ledger: not an iap-audit ledger"), other.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty).sorted(), ["email.txt", "other.db"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), ["empty"])
    }

    /// A support engineer who may only read the lock file (the nights run as another user, who made it 0644)
    /// still waits for the run writing the ledger: `flock` needs no write access (helper-35: the trace read a
    /// ledger half-written, and a run started during such a trace failed on SQLite's lock).
    func testATraceWhoMayOnlyReadTheLockFileWaitsForTheRun() throws {
        let folder = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let run = open(folder + "/.audit.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        XCTAssertEqual(flock(run, LOCK_EX | LOCK_NB), 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { close(run) }
        // As another user: opening it to write is refused.
        let readOnly: (String, Int32) -> Int32 = { path, flags in
            flags & O_ACCMODE == O_RDONLY
                ? open(path, flags)
                : {
                    errno = EACCES; return -1
                }()
        }
        let start = Date()
        var waited: [String] = []
        let descriptor = try XCTUnwrap(try FolderLock.shared(folder: folder, onWait: { waited.append($0) }, openFile: readOnly))
        defer { close(descriptor) }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.9, "it waited for the run")
        XCTAssertEqual(waited.count, 1)
        // And a run started now waits for it in turn: the shared lock is held.
        let next = open(folder + "/.audit.lock", O_RDWR | O_CLOEXEC)
        defer { close(next) }
        XCTAssertNotEqual(flock(next, LOCK_EX | LOCK_NB), 0)
    }

}
