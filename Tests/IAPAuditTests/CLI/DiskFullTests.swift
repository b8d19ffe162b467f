import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReport

/// `--out` on a small filesystem (a tmpfs mounted for the test; skipped where mounting is not allowed):
/// a run ends in one consistent outcome — exit 1, one clear message, `--json`'s error object — and leaves the
/// last good workbook as it was (never half a one); nothing libxlsxwriter prints reaches stderr raw.
final class DiskFullTests: XCTestCase {
    private var mounted: String?

    /// A fresh tmpfs of `size` (`2m`, `16m`) at a scratch folder; skips the test when it cannot be mounted.
    private func smallDisk(_ size: String) throws -> String {
        let dir = TestPaths.scratch()
        let mount = try Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", dir])
        guard mount.status == 0 else {
            throw XCTSkip(
                "cannot mount a tmpfs here (root and CAP_SYS_ADMIN needed; mount said: \(mount.output)): the disk-full tests did not run")
        }
        mounted = dir
        return dir
    }

    override func tearDown() {
        if let mounted { _ = try? Self.command("/bin/umount", ["-l", mounted]) }
        mounted = nil
    }

    static let sample = [TestPaths.repoRoot + "/sample-data", "--config", TestPaths.repoRoot + "/sample-data/config.json"]

    /// Runs the command line in-process with stderr's descriptor captured too: what libxlsxwriter (C) prints.
    private func run(_ out: String) -> (run: CLIRun, raw: [String]) {
        let capture = StandardErrorCapture()
        let run = CLIRun(["run"] + Self.sample + ["--out", out, "--json"])
        return (run, capture.stop())
    }

    private func runStatus(_ out: String) throws -> String? {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            row = db.execute("SELECT value FROM run_parameter WHERE name = 'run_status'").fetchone()
            print(json.dumps(row[0] if row else None))
            """, args: [out + "/audit.sqlite"]) as? String
    }

    func testAFullDiskWhileImportingEndsInOneClearMessage() throws {
        // Room for the empty ledger (a 64 KiB page per table and index: about 2.5 MB with the lifecycle's tables), not
        // for the sample's records (a 6 MB ledger).
        let out = try smallDisk("4m") + "/out"
        let (run, raw) = run(out)
        XCTAssertEqual(run.status, 1)
        let message =
            "\(out)/audit.sqlite: error: cannot write output: the disk is full (SQLite error 13: database or disk is full); "
            + "free some space and run again: the next run completes this one"
        XCTAssertEqual(run.err, "iap-audit: " + message)
        XCTAssertEqual(run.out, RunSummary.failure(message, exit: 1))
        XCTAssertEqual(raw, [], "nothing printed past the command line's own stderr")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.xlsx"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.xlsx.partial"))
        XCTAssertEqual(try runStatus(out), "incomplete")
    }

    /// The workbook's writer on a full disk: an `XLSXError` that knows it, with libxlsxwriter's words inside
    /// it and none on stderr; the run says it as the disk being full.
    func testAFullDiskWhileWritingTheWorkbookIsSaidAsSuch() throws {
        let disk = try smallDisk("1m")
        try Self.fill(disk, leaving: 0)
        let path = disk + "/audit.xlsx.partial"
        let capture = StandardErrorCapture()
        var thrown: (any Error)?
        XCTAssertThrowsError(try XLSXWriter.write(ReportBuilder.workbook(Self.snapshot()), to: path)) { thrown = $0 }
        XCTAssertEqual(capture.stop(), [], "libxlsxwriter's [ERROR] lines do not reach stderr")
        let error = try XCTUnwrap(thrown as? XLSXError)
        XCTAssertTrue(error.isDiskFull, "\(error)")
        XCTAssertTrue(error.diagnostics.contains { $0.contains("No space left on device") }, "\(error.diagnostics)")
        let said = "\(DiskFull.reported(error, databasePath: disk + "/audit.sqlite", workbookPath: disk + "/audit.xlsx", folder: disk))"
        XCTAssertTrue(said.hasPrefix("\(disk)/audit.xlsx: error: cannot write output: the disk is full (libxlsxwriter: "), said)
        XCTAssertTrue(said.hasSuffix("No space left on device); free some space and run again: the next run completes this one"), said)
        XCTAssertFalse(said.contains("[ERROR]"), said)
    }

    /// The disk fills up between two runs into the same folder: at every amount of free space the second run
    /// either completes (its workbook beside a complete database) or fails saying the disk is full, leaving the
    /// last good workbook as it was, byte for byte (beside a database that says incomplete).
    func testEveryOutcomeOnAFillingDiskIsConsistent() throws {
        let disk = try smallDisk("16m")
        let out = disk + "/out"
        XCTAssertEqual(run(out).run.status, 0)
        var lastGood = try XCTUnwrap(FileManager.default.contents(atPath: out + "/audit.xlsx"))
        var failures: Set<String> = []
        for free in stride(from: 0, through: 720 << 10, by: 24 << 10) {
            try Self.fill(disk, leaving: free)
            let (run, raw) = run(out)
            let workbook = FileManager.default.contents(atPath: out + "/audit.xlsx")
            let status = try runStatus(out)
            let context = "\(free) bytes free: exit \(run.status), \(run.err)"
            XCTAssertEqual(raw, [], context)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.xlsx.partial"), context)
            if run.status == 0 {
                XCTAssertTrue(workbook != nil && status == "complete", context)
                lastGood = workbook ?? lastGood
            } else {
                XCTAssertEqual(run.status, 1, context)
                let line = try XCTUnwrap(run.err.components(separatedBy: "\n").last { $0.contains("error:") }, context)
                XCTAssertTrue(line.contains(": error: cannot write output: the disk is full ("), context)
                XCTAssertFalse(run.err.contains("[ERROR]"), context)
                XCTAssertEqual(workbook, lastGood, "the last good workbook, unchanged: \(context)")
                failures.insert(line.contains("/audit.xlsx:") ? "workbook" : "database")
            }
        }
        // Which write meets the full disk first depends on the free space (and on timing: the workbook is
        // written while the findings are stored); the database is met at least.
        XCTAssertTrue(failures.contains("database"), "the sweep met the disk full while storing: \(failures)")
        try Self.fill(disk, leaving: 8 << 20)
        let after = run(out).run
        XCTAssertEqual(after.status, 0, "with room again, the next run completes: \(after.err)")
        XCTAssertEqual(try runStatus(out), "complete")
    }

    /// Leaves `free` bytes free on the filesystem of `disk` (a file `filler` takes the rest).
    static func fill(_ disk: String, leaving free: Int) throws {
        let filler = disk + "/filler"
        try? FileManager.default.removeItem(atPath: filler)
        var info = statvfs()
        XCTAssertEqual(statvfs(disk, &info), 0)
        let available = Int(info.f_bavail) * Int(info.f_frsize)
        guard available > free else { return }
        let fd = open(filler, O_CREAT | O_WRONLY, 0o644)
        defer { close(fd) }
        XCTAssertEqual(posix_fallocate(fd, 0, off_t(available - free)), 0)
    }

    /// A snapshot of a small audit (the sample), for the writer alone.
    static func snapshot() throws -> AuditSnapshot {
        let out = TestPaths.scratch()
        return try AuditPipeline.run(
            AuditOptions(
                paths: [TestPaths.repoRoot + "/sample-data"], outputDirectory: out,
                config: try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json"))
        ).snapshot
    }

    static func command(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
