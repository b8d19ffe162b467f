import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// What an operator's setup gets wrong, found by a user trying to break the tool: a folder whose mount
/// failed beside folders that did not, an output stream that cannot be written, a file mostly rejected,
/// logs covering different days.
final class OperatorMistakeTests: XCTestCase {
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iap-audit").path
    }

    private func copySample(_ names: [String], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/" + name, toPath: folder + "/" + name)
        }
    }

    /// One folder among several comes back empty (its mount failed): the run stops and keeps the ledger,
    /// instead of dropping that folder's records and reporting thousands of false dropped orders.
    func testAnEmptyFolderAmongSeveralStopsTheRun() throws {
        let root = TestPaths.scratch()
        try copySample(["server.jsonl"], to: root + "/server")
        try copySample(["verify.jsonl"], to: root + "/apple")
        try copySample(["client.jsonl"], to: root + "/client")
        let config = ["--config", TestPaths.repoRoot + "/sample-data/config.json"]
        let paths = [root + "/server", root + "/apple", root + "/client"]
        XCTAssertEqual(CLIRun(["run"] + paths + ["--out", root + "/out"] + config).status, 0)
        try FileManager.default.removeItem(atPath: root + "/server/server.jsonl")
        let again = CLIRun(["run"] + paths + ["--out", root + "/out"] + config)
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(
            again.err,
            "iap-audit: \(root)/server: error: cannot read input: no input file found in this folder (a failed mount or export?); the last "
                + "run's ledger of 1 file(s) from it in \(root)/out/audit.sqlite is kept as it is; to drop them, remove the folder "
                + "from the command line")
        let files =
            try PythonReader.run(
                "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM source_file').fetchone()[0])",
                args: [root + "/out/audit.sqlite"]) as? Int
        XCTAssertEqual(files, 3, "the ledger is kept")
    }

    /// Standard output that cannot be written (a full disk, a closed descriptor) loses the summary, never the
    /// run: exit 1, no trap.
    func testAnUnwritableStandardOutputIsExit1NotACrash() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else { return XCTFail("no iap-audit binary at \(binary)") }
        for (stdout, stderr, expected) in [("/dev/full", "/dev/null", Int32(1)), ("/dev/null", "/dev/full", 0)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["run", TestPaths.repoRoot + "/sample-data", "--out", TestPaths.scratch() + "/out", "--json"]
            process.standardOutput = FileHandle(forWritingAtPath: stdout)
            process.standardError = FileHandle(forWritingAtPath: stderr)
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "\(stdout) \(stderr)")
            XCTAssertEqual(process.terminationStatus, expected, "stdout \(stdout), stderr \(stderr)")
        }
    }

    /// A server log re-saved by a spreadsheet (every id in scientific notation): nearly every line is
    /// rejected, and a warning says what that does to the findings.
    func testAMostlyRejectedFileIsWarnedAbout() throws {
        let folder = TestPaths.scratch()
        var lines = ["ts,request_id,user_id,transaction_ids,granted,verify_status"]
        for k in 0..<20 { lines.append("2026-10-01T00:0\(k / 10):\(k % 10)0Z,r\(k),u\(k),2.00000040059\(k + 10)E15,true,0") }
        lines.append("2026-10-01T00:05:00Z,r99,u99,2000000400594999,true,0")
        TestPaths.write(lines.joined(separator: "\n") + "\n", to: folder + "/server.csv")
        let result = try AuditPipeline.run(AuditOptions(paths: [folder], outputDirectory: folder + "/out"))
        let warning = try XCTUnwrap(result.warnings.first { $0.code == .mostlyRejected })
        XCTAssertEqual(warning.file, folder + "/server.csv")
        XCTAssertTrue(
            warning.message.hasPrefix(folder + "/server.csv: 20 of its 21 records (95%) were rejected (first, line 2: "), warning.message)
        XCTAssertTrue(warning.message.hasSuffix("fix the file and run again"), warning.message)
    }

    /// Apple's answers cut short (a copy interrupted mid-line): the warning names what that does to the
    /// findings of Apple records, not of a server log.
    func testAMostlyRejectedAppleFileSaysWhatItsAnswersWouldHaveProved() throws {
        let folder = TestPaths.scratch()
        var lines = [#"{"request_id": "r1", "received_at": "2026-10-01T00:00:01Z", "response": {"status": 0, "receipt": {"in_app": []}}}"#]
        for k in 2...4 { lines.append(#"{"request_id": "r\#(k)", "received_at": "2026-10-01T00:00:0\#(k)Z", "response": {"sta"#) }
        TestPaths.write(lines.joined(separator: "\n") + "\n", to: folder + "/verify.jsonl")
        let result = try AuditPipeline.run(AuditOptions(paths: [folder], outputDirectory: folder + "/out"))
        let warning = try XCTUnwrap(result.warnings.first { $0.code == .mostlyRejected })
        XCTAssertTrue(
            warning.message.hasPrefix(folder + "/verify.jsonl: 3 of its 4 records (75%) were rejected (first, line 2: "), warning.message)
        XCTAssertTrue(
            warning.message.hasSuffix(
                "what they held is missing from the findings (a credit they would prove shows as invalid_credit, a payment they would "
                    + "confirm as claimed only); fix the file and run again"), warning.message)
    }

    /// A file no line of which could be read says only that what it held is missing (its kind is unknown).
    func testAnUnreadableFileSaysOnlyThatItsRecordsAreMissing() throws {
        let folder = TestPaths.scratch()
        TestPaths.write(#"{"ts":"2026-10-01T00:00:00Z","request_id":"r1","granted":true"# + "\n", to: folder + "/bad.jsonl")
        let result = try AuditPipeline.run(AuditOptions(paths: [folder], outputDirectory: folder + "/out"))
        let warning = try XCTUnwrap(result.warnings.first { $0.code == .mostlyRejected })
        XCTAssertTrue(
            warning.message.hasSuffix(
                "(first, line 1: invalid JSON: unexpected end of input in an object at line 1, column 62): what they held is missing from the findings; fix the file and run again"
            ), warning.message)
    }

    /// The client reports start nine days before the server log: the warning says what both cover.
    func testLogsCoveringDifferentDaysAreWarnedAbout() throws {
        let folder = TestPaths.scratch()
        TestPaths.write(
            #"{"ts": "2026-10-01T09:00:00Z", "user_id": "u1", "transaction_id": "1", "state": "purchased"}"# + "\n"
                + #"{"ts": "2026-10-20T09:00:00Z", "user_id": "u2", "transaction_id": "2", "state": "purchased"}"# + "\n",
            to: folder + "/client.jsonl")
        TestPaths.write(
            #"{"ts": "2026-10-10T00:00:00Z", "request_id": "r2", "user_id": "u2", "transaction_ids": ["2"], "granted": false}"# + "\n"
                + #"{"ts": "2026-10-20T09:00:02Z", "request_id": "r3", "user_id": "u2", "transaction_ids": ["2"], "granted": false}"#
                + "\n", to: folder + "/server.jsonl")
        let result = try AuditPipeline.run(AuditOptions(paths: [folder], outputDirectory: folder + "/out"))
        XCTAssertEqual(
            result.warnings.first { $0.code == .logCoverage }?.message,
            "the client reports cover 2026-10-01T09:00:00.000Z to 2026-10-20T09:00:00.000Z, the server log "
                + "2026-10-10T00:00:00.000Z to 2026-10-20T09:00:02.000Z: a purchase reported outside what the server log covers shows "
                + "as never_sent; judge only what both cover with --from 2026-10-10T00:00:00.000Z --to 2026-10-20T09:00:00.000Z")
    }
}
