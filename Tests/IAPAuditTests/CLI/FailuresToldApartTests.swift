import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// What a scheduler tells apart on the built binary (docs/operations.md, Exit statuses): 0 completed, 1 failed, 3 alerts,
/// 64 usage, 75 the folder is held (try again later); `--json`'s stdout is one JSON object whatever stderr holds; a run
/// that dies or fails after reconciling leaves the last good `audit.xlsx` as it was.
final class FailuresToldApartTests: XCTestCase {
    static let sample = TestPaths.repoRoot + "/sample-data"

    /// One client report of 2026-10-01: a tiny ledger whose newest record is weeks old by the clock.
    private func tinyInput(_ root: String) -> String {
        let input = root + "/in/client.jsonl"
        try? FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        TestPaths.write(
            #"{"ts":"2026-10-01T10:00:00Z","user_id":"u1","transaction_id":"1000","state":"purchased","product_id":"com.example.gems60"}"#
                + "\n", to: input)
        return input
    }

    /// `--json`'s stdout read by Python's `json` (the whole of it: anything else there fails), as `{"exit", "error"?}`.
    private func stdoutJSON(_ text: String) throws -> [String: Any] {
        let file = TestPaths.scratch("stdout") + "/out.json"
        TestPaths.write(text, to: file)
        let read = try PythonReader.run(
            """
            import json, sys
            o = json.loads(open(sys.argv[1], encoding="utf-8").read())
            print(json.dumps({"exit": o["exit"] if "exit" in o else o["alert"]["exit"], "error": o.get("error")}))
            """, args: [file])
        return try XCTUnwrap(read as? [String: Any])
    }

    func testEachExitStatusOnTheBuiltBinary() throws {
        let root = TestPaths.scratch(), out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let input = tinyInput(root)

        let completed = try BuiltBinary.run(["run", input, "--out", out, "--json"])
        XCTAssertEqual(completed.status, 0, completed.err)
        XCTAssertEqual(try stdoutJSON(completed.out)["exit"] as? Int, 0)

        let alerts = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-stale", "24", "--json"])
        XCTAssertEqual(alerts.status, 3, alerts.err)
        XCTAssertEqual(try stdoutJSON(alerts.out)["exit"] as? Int, 3)

        let failed = try BuiltBinary.run(["run", root + "/no-such-folder", "--out", out, "--json"])
        XCTAssertEqual(failed.status, 1, failed.err)
        XCTAssertEqual(try stdoutJSON(failed.out)["exit"] as? Int, 1)

        let usage = try BuiltBinary.run(["run", input, "--out", out, "--fail-on-stale-runs", "0", "--json"])
        XCTAssertEqual(usage.status, 64, usage.err)
        XCTAssertTrue(usage.err.hasPrefix("Error: --fail-on-stale-runs: not a number of runs from 1 to 9999: '0'\n"), usage.err)
        XCTAssertEqual(try stdoutJSON(usage.out)["exit"] as? Int, 64)

        // Another run holds the folder (this process takes its lock as a run does): nothing failed, try again later.
        let descriptor = open(out + "/.audit.lock", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0)
        let message = "\(out): error: cannot write output: another iap-audit run is writing this folder; try again when it has finished"
        for command in [["run", input], ["ack", "dropped_order:1000", "--note", "n"], ["close", "--period", "2026-10", input]] {
            let busy = try BuiltBinary.run(command + ["--out", out, "--json"])
            XCTAssertEqual(busy.status, 75, "\(command[0]): \(busy.err)")
            XCTAssertEqual(busy.err, "iap-audit: \(message)\n", command[0])
            let json = try stdoutJSON(busy.out)
            XCTAssertEqual(json["exit"] as? Int, 75, command[0])
            XCTAssertEqual(json["error"] as? String, message, command[0])
        }
        close(descriptor)
        XCTAssertEqual(try BuiltBinary.run(["run", input, "--out", out]).status, 0, "the folder free again")
    }

    /// `--json` with stderr sent elsewhere (a file, as cron's `2>log/last-run.err`): stdout parses as JSON on its own,
    /// though the run said a config, warnings and alerts on stderr.
    func testJSONStdoutIsOnlyJSONWhateverStderrHolds() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let run = try BuiltBinary.run(["run", Self.sample, "--out", out, "--fail-on", "new", "--fail-on-stale", "20", "--json"])
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertEqual(try stdoutJSON(run.out)["exit"] as? Int, 3)
        XCTAssertTrue(run.out.hasPrefix("{"), String(run.out.prefix(200)))
        XCTAssertTrue(run.err.contains("iap-audit: using \(Self.sample)/config.json as --config"), run.err)
        XCTAssertTrue(run.err.contains("\niap-audit: warning: "), run.err)
        XCTAssertTrue(run.err.contains("\niap-audit: alert: 111 new problem finding(s): "), run.err)
        XCTAssertFalse(run.out.contains("iap-audit: "), "nothing of stderr on stdout")
    }

    /// The workbook's bytes, and its sheets and Summary's first cell as openpyxl reads them.
    private func workbook(_ path: String) throws -> (bytes: Data, read: [String: Any]) {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path), "no workbook at \(path)")
        let read = try PythonReader.run(
            PythonReader.xlsxPrelude + """
                wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
                print(json.dumps({"sheets": wb.sheetnames[:2], "a1": plain(wb["Summary"]["A1"].value)}))
                """, args: [path])
        return (bytes, try XCTUnwrap(read as? [String: Any]))
    }

    /// A good run, then a run given one more file that is killed (SIGKILL) once it has reconciled and written its
    /// workbook, before putting it in place: the good run's audit.xlsx is there, unchanged and readable. The next run
    /// completes and replaces it.
    func testARunKilledAfterReconcilingLeavesTheLastGoodWorkbook() throws {
        let (input, out) = try scratchSample(["client.jsonl", "server.jsonl"])
        XCTAssertEqual(try BuiltBinary.run(["run", input, "--out", out]).status, 0)
        let good = try workbook(out + "/audit.xlsx")
        XCTAssertEqual(good.read["sheets"] as? [String], ["Summary", "Changes"])

        try FileManager.default.copyItem(atPath: Self.sample + "/verify.jsonl", toPath: input + "/verify.jsonl")
        let killed = try BuiltBinary.run(["run", input, "--out", out], environment: ["IAP_AUDIT_KILL_AT": "report_workbook"])
        XCTAssertEqual(killed.status, -SIGKILL, "killed where asked: \(killed.err)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/audit.xlsx.partial"), "its own workbook was written")
        let after = try workbook(out + "/audit.xlsx")
        XCTAssertEqual(after.bytes, good.bytes, "the last good workbook, byte for byte")
        XCTAssertEqual(after.read["a1"] as? String, good.read["a1"] as? String)
        XCTAssertEqual(try AuditStore(path: out + "/audit.sqlite").runParameter("run_status"), "incomplete")

        let next = try BuiltBinary.run(["run", input, "--out", out])
        XCTAssertEqual(next.status, 0, next.err)
        XCTAssertNotEqual(try workbook(out + "/audit.xlsx").bytes, good.bytes, "the completed run's workbook replaced it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.xlsx.partial"))
    }

    /// A run that fails after reconciling (its written workbook taken away before it is put in place: the rename fails):
    /// exit 1 naming audit.xlsx, and the last good workbook unchanged.
    func testARunFailingAfterReconcilingLeavesTheLastGoodWorkbook() throws {
        let (input, out) = try scratchSample(["client.jsonl", "server.jsonl"])
        XCTAssertEqual(try BuiltBinary.run(["run", input, "--out", out]).status, 0)
        let good = try workbook(out + "/audit.xlsx")
        try FileManager.default.copyItem(atPath: Self.sample + "/verify.jsonl", toPath: input + "/verify.jsonl")

        let paused = TestPaths.scratch("pause") + "/at-report-workbook"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = ["run", input, "--out", out]
        process.environment = ProcessInfo.processInfo.environment.merging(["IAP_AUDIT_PAUSE_AT": "report_workbook:" + paused]) { _, new in
            new
        }
        let stderr = Pipe()
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, stderr)
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: paused) && process.isRunning && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: paused), "the run reached its workbook")
        try FileManager.default.removeItem(atPath: out + "/audit.xlsx.partial")
        try FileManager.default.removeItem(atPath: paused)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, err)
        XCTAssertEqual(err, "iap-audit: \(out)/audit.xlsx: error: cannot write output: No such file or directory\n")
        let after = try workbook(out + "/audit.xlsx")
        XCTAssertEqual(after.bytes, good.bytes, "the last good workbook, byte for byte")
        XCTAssertEqual(after.read["sheets"] as? [String], ["Summary", "Changes"])
        XCTAssertEqual(try AuditStore(path: out + "/audit.sqlite").runParameter("run_status"), "incomplete")
    }
}
