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

/// What `run` does with odd folders: its own outputs inside the inputs, FIFOs, links, a folder
/// where the workbook goes, a run that was killed.
final class InputFolderTests: XCTestCase {
    func inputFolder() -> String {
        let dir = TestPaths.scratch()
        TestPaths.write(
            """
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "product_id": "p", "state": "purchased"}
            """, to: dir + "/client.jsonl")
        return dir
    }

    /// What a run on `inputFolder()` (client reports only) warns after reconciling.
    let noServerLog =
        "iap-audit: warning: no server-log record was imported: nothing the server credited is known, so every purchase "
        + "the client reported or Apple listed shows as never credited (dropped_order); pass the server's transaction log too"

    /// A config, so that the run does not warn about running without one.
    func config() -> [String] {
        let path = TestPaths.scratch() + "/config.json"
        TestPaths.write(#"{"bundle_ids": ["com.example.app"]}"#, to: path)
        return ["--config", path]
    }

    func testOutputFolderSameAsInputFolder() {
        let dir = inputFolder()
        XCTAssertEqual(CLIRun(["run", dir, "--out", dir]).status, 0)
        let again = CLIRun(["run", dir, "--out", dir, "--json"])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.out.contains(#""records":{"imported":1,"in":1,"rejected":0}"#), again.out)
        XCTAssertFalse(again.out.contains("audit.sqlite\",\"kind\""), "its own outputs are not inputs")
        XCTAssertFalse(again.out.contains(".audit.lock"), "nor its lock, even as a hidden file skipped")
    }

    /// The output folder inside the input folder, either reached through a symbolic link: its own
    /// files are never inputs, and every run succeeds (the second run used to read its own workbook).
    func testOutputFolderReachedThroughALinkIsStillItsOwn() throws {
        let dir = inputFolder(), links = TestPaths.scratch()
        try FileManager.default.createSymbolicLink(atPath: links + "/in", withDestinationPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/rep", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/out", withDestinationPath: dir + "/rep")
        for (input, out) in [(links + "/in", links + "/in/rep"), (dir, links + "/out")] {
            for run in 1...3 {
                // The folder is named two ways: without --forget-missing the ledger would keep the other name's file too.
                let result = CLIRun(["run", input, "--out", out, "--json", "--forget-missing"] + config())
                XCTAssertEqual(result.status, 0, "run \(run) on \(input) into \(out): \(result.err)")
                XCTAssertEqual(result.out.components(separatedBy: #""path":"#).count, 2, "one input, client.jsonl: \(result.out)")
                XCTAssertTrue(result.out.contains(#""records":{"imported":1,"in":1,"rejected":0}"#), result.out)
            }
        }
    }

    /// A hidden file or folder named on the command line is read, whatever the order of the arguments,
    /// and not also listed as skipped by the folder holding it.
    func testHiddenPathsNamedOnTheCommandLineAreReadInAnyOrder() throws {
        let dir = inputFolder()
        TestPaths.write(
            #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","transaction_ids":["100"],"granted":true}"#, to: dir + "/.server.jsonl")
        try FileManager.default.createDirectory(atPath: dir + "/.more", withIntermediateDirectories: true)
        TestPaths.write(
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u2","transaction_id":"200","state":"purchased"}"#, to: dir + "/.more/c.jsonl")
        for arguments in [[dir, dir + "/.server.jsonl", dir + "/.more"], [dir + "/.more", dir + "/.server.jsonl", dir]] {
            let result = try AuditPipeline.run(AuditOptions(paths: arguments, outputDirectory: TestPaths.scratch()))
            let files = Dictionary(uniqueKeysWithValues: result.snapshot.files.map { ($0.path, $0) })
            XCTAssertEqual(files[dir + "/.server.jsonl"]?.recordsImported, 1, "\(arguments)")
            XCTAssertEqual(files[dir + "/.more/c.jsonl"]?.recordsImported, 1, "\(arguments)")
            XCTAssertNil(files[dir + "/.more"], "not listed as a skipped hidden folder beside its files")
        }
    }

    func testFIFOAndLinksAreListedAsSkipped() throws {
        let dir = inputFolder()
        XCTAssertEqual(mkfifo(dir + "/pipe", 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: dir + "/nowhere")
        try FileManager.default.createSymbolicLink(atPath: dir + "/folder-link", withDestinationPath: NSTemporaryDirectory())
        try FileManager.default.createSymbolicLink(atPath: dir + "/file-link.jsonl", withDestinationPath: dir + "/client.jsonl")
        TestPaths.write(
            #"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","transaction_ids":["100"],"granted":true}"#, to: dir + "/.server.jsonl")
        try FileManager.default.createDirectory(atPath: dir + "/.git/objects", withIntermediateDirectories: true)
        TestPaths.write("x", to: dir + "/.git/objects/a")
        TestPaths.write("", to: dir + "/empty-1")
        TestPaths.write("", to: dir + "/empty-2")
        try FileManager.default.createSymbolicLink(atPath: dir + "/loop-a", withDestinationPath: dir + "/loop-b")
        try FileManager.default.createSymbolicLink(atPath: dir + "/loop-b", withDestinationPath: dir + "/loop-a")
        let result = try AuditPipeline.run(AuditOptions(paths: [dir], outputDirectory: TestPaths.scratch()))
        let notes = Dictionary(
            uniqueKeysWithValues: result.snapshot.files.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.note) })
        XCTAssertEqual(notes["pipe"], "not a regular file: a named pipe (FIFO); iap-audit reads files, copy its content to one")
        XCTAssertEqual(notes["dangling"], "dangling symbolic link (its target does not exist)")
        XCTAssertEqual(notes["loop-a"], "symbolic link loop (it leads back to itself)")
        XCTAssertEqual(notes["folder-link"], "symbolic link to a folder (not followed: name the folder itself)")
        XCTAssertEqual(notes["file-link.jsonl"], "same content as \(dir)/client.jsonl (not counted twice)")
        XCTAssertEqual(notes[".server.jsonl"], "hidden file (its name starts with '.'): not read; name it on the command line to read it")
        XCTAssertEqual(
            notes[".git"], "hidden folder (its name starts with '.'): not searched; name it on the command line to search it")
        XCTAssertNil(notes["a"], "a hidden folder is not searched")
        XCTAssertEqual(notes["empty-1"], "empty file")
        XCTAssertEqual(notes["empty-2"], "empty file", "two empty files are not copies of one another")
    }

    func testAFolderWhereTheWorkbookGoesIsNeverDeleted() {
        let dir = inputFolder(), out = TestPaths.scratch()
        try? FileManager.default.createDirectory(atPath: out + "/audit.xlsx/keep", withIntermediateDirectories: true)
        let run = CLIRun(["run", dir, "--out", out])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.err, "iap-audit: \(out)/audit.xlsx: error: cannot write output: exists and is a folder")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.xlsx/keep"))
    }

    func testRunsWithoutConfigOrEvidenceSayWhy() {
        let empty = TestPaths.scratch()
        let run = CLIRun(["run", empty, "--out", TestPaths.scratch()])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(
            run.err.components(separatedBy: "\n"),
            [
                "iap-audit: warning: no products, bundle_ids or sandbox_allowlist configured (--config): product types are unknown (a second grant counts as a consumable's same_user duplicate), bundle ids are not checked, and no user is on the sandbox allowlist",
                "iap-audit: warning: no transaction evidence (client report, server-log or Apple record) was imported from \(empty): "
                    + "nothing was audited",
            ])
    }

    func testUnlinkedResponsesAreCounted() {
        let dir = inputFolder()
        TestPaths.write(
            #"{"ts": "2026-10-01T00:00:01Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["100"], "granted": false}"#,
            to: dir + "/server.jsonl")
        TestPaths.write(
            #"{"request_id": "r9", "received_at": "2026-10-01T00:00:02Z", "response": {"status": 21005}}"#, to: dir + "/verify.jsonl")
        let run = CLIRun(["run", dir, "--out", TestPaths.scratch()] + config())
        XCTAssertEqual(
            run.err,
            "iap-audit: warning: \(dir)/verify.jsonl:1: 1 verify response(s) name a request_id that is not in the server log (first: r9); they prove nothing for any grant"
        )
    }

    /// Two runs into one folder at once: the second is refused while the first holds the lock (exit 75: try again later).
    func testConcurrentRunIsRefused() throws {
        let out = TestPaths.scratch()
        let holder = try OutputFolder(path: out)
        let run = CLIRun(["run", inputFolder(), "--out", out])
        XCTAssertEqual(run.status, 75, "EX_TEMPFAIL: try again later")
        XCTAssertEqual(
            run.err,
            "iap-audit: \(out): error: cannot write output: another iap-audit run is writing this folder; try again when it has finished")
        _ = holder
    }

    func testOptionErrors() {
        XCTAssertEqual(CLIRun(["run", "--out", "a", "--out", "b"]).err.components(separatedBy: "\n").first, "Error: '--out' given twice")
        XCTAssertEqual(CLIRun(["run", "--grace", "3e12"]).status, 64)
        for hours in ["0x10", "1e1", "inf", "-1", "+2", "1.", ".5", " 2"] {
            XCTAssertEqual(
                CLIRun(["run", "--grace", hours]).err.components(separatedBy: "\n").first,
                "Error: --grace: not a number of hours from 0 to 87600: '\(hours)'", hours)
        }
        XCTAssertEqual(CLIRun(["run", "--as-of", "-9223372036854775808"]).status, 64)
        XCTAssertEqual(CLIRun(["sample"]).status, 64, "sample needs --out: it never overwrites sample-data/ by default")
        let file = TestPaths.scratch() + "/f"
        TestPaths.write("x", to: file)
        XCTAssertEqual(
            CLIRun(["run", inputFolder(), "--out", file]).err, "iap-audit: \(file): error: cannot write output: exists and is not a folder")
    }

    /// An empty input folder (a failed mount) must not empty the ledger the last run filled: exit 1,
    /// the database and workbook left as they are. With no ledger yet it is only a warning.
    func testAnEmptyInputFolderDoesNotEmptyTheLedger() throws {
        let dir = inputFolder(), out = TestPaths.scratch(), empty = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", dir, "--out", out] + config()).status, 0)
        let before = try AuditStore(path: out + "/audit.sqlite").snapshot()
        let run = CLIRun(["run", empty, "--out", out] + config())
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.err,
            "iap-audit: \(empty): error: cannot read input: no input file found (a failed mount or export?); the last run's ledger "
                + "of 1 file(s) in \(out)/audit.sqlite is kept as it is; to empty it, remove that file")
        let after = try AuditStore(path: out + "/audit.sqlite").snapshot()
        XCTAssertEqual(after.files.map(\.path), before.files.map(\.path))
        XCTAssertEqual(after.findings.counts.map(\.count), before.findings.counts.map(\.count))
        XCTAssertEqual(before.findings.counts.map(\.count), [1], "the dropped order of transaction 100")
        XCTAssertEqual(try AuditStore(path: out + "/audit.sqlite").runParameter("run_status"), "complete")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.xlsx"))
        XCTAssertEqual(CLIRun(["run", empty, "--out", TestPaths.scratch()] + config()).status, 0, "no ledger to keep")
    }

    /// A newline or an escape character in a file name is shown escaped on the terminal: one line per
    /// file and per rejection, and no terminal control from the input.
    func testControlCharactersInFileNamesArePrintedEscaped() {
        let dir = inputFolder()
        TestPaths.write(
            #"{"ts":"2026-10-01T00:00:00Z","user_id":"u1","transaction_id":"7","state":"bogus"}"#, to: dir + "/new\nline\u{1B}[2J.jsonl")
        let run = CLIRun(["run", dir, "--out", TestPaths.scratch()] + config())
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.out.contains("  \(dir)/new\\nline\\u{1B}[2J.jsonl  client_report: 1 in = 0 imported + 1 rejected"), run.out)
        XCTAssertTrue(run.err.contains("\(dir)/new\\nline\\u{1B}[2J.jsonl:1: error: field 'state': unknown state"), run.err)
        XCTAssertFalse((run.out + run.err).unicodeScalars.contains { $0.value == 0x1B }, "no escape character reaches the terminal")
    }

    func testKilledRunIsReportedAndCompleted() throws {
        let dir = inputFolder(), out = TestPaths.scratch()
        try AuditStore(path: out + "/audit.sqlite").setRunParameter("run_status", "incomplete")
        let run = CLIRun(["run", dir, "--out", out] + config())
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.err, "iap-audit: warning: the previous run into \(out) did not complete; this run completes it\n" + noServerLog)
        XCTAssertEqual(try AuditStore(path: out + "/audit.sqlite").runParameter("run_status"), "complete")
        XCTAssertEqual(CLIRun(["run", dir, "--out", out] + config()).err, noServerLog, "no killed-run warning once complete")
    }

    func testFutureDatedRecordIsNamedWhenItSetsTheAsOf() {
        let dir = inputFolder()
        TestPaths.write(
            #"{"ts": "2199-01-01T00:00:00Z", "user_id": "u1", "transaction_id": null, "state": "failed"}"#, to: dir + "/late.jsonl")
        let run = CLIRun(["run", dir, "--out", TestPaths.scratch()] + config())
        XCTAssertEqual(
            run.err,
            "iap-audit: warning: \(dir)/late.jsonl:1: as-of 2199-01-01T00:00:00.000Z comes from a record dated in the future; pass --as-of to audit as of another time\n"
                + noServerLog)
    }
}
