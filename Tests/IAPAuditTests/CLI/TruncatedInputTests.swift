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

/// An input truncated while the run reads it (logrotate's `copytruncate`): a one-line error naming the
/// file and exit status 1, not a SIGBUS crash with a backtrace; the next run completes.
/// Runs the built `iap-audit` binary (beside the test bundle) as a child process.
final class TruncatedInputTests: XCTestCase {
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iap-audit").path
    }

    func testInputTruncatedWhileReadIsAnErrorNotACrash() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return XCTFail("no iap-audit binary at \(binary): build with `swift build --build-tests` (scripts/test.sh does)")
        }
        let folder = TestPaths.scratch()
        let input = folder + "/in/client.jsonl"
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        // 240 MB of client reports: far longer to read than the truncation takes to land.
        let line =
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"1000","state":"purchased","product_id":"com.example.gems60"}"#
        let block = Data(String(repeating: line + "\n", count: 8_000).utf8)
        _ = FileManager.default.createFile(atPath: input, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        for _ in 0..<240 { handle.write(block) }
        try handle.close()

        // A complete run first: its workbook outlives the stopped run, unchanged (the last good one).
        TestPaths.write(String(decoding: block.prefix(line.utf8.count + 1), as: UTF8.self), to: folder + "/small.jsonl")
        XCTAssertEqual(CLIRun(["run", folder + "/small.jsonl", "--out", folder + "/out"]).status, 0)
        let lastGood = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/out/audit.xlsx"))
        let paused = folder + "/at-import-checks"

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        // Under --json, stdout gets the failure object too (found by an on-call user test: it got nothing).
        process.arguments = ["run", folder + "/in", "--out", folder + "/out", "--json"]
        // Held where the run has checked its ledger and is about to read the input (`PhaseTimer.checkpoint`).
        process.environment = ProcessInfo.processInfo.environment.merging(["IAP_AUDIT_PAUSE_AT": "import_checks:" + paused]) { _, new in
            new
        }
        let stderr = Pipe()
        let stdout = Pipe()
        process.standardError = stderr
        process.standardOutput = stdout
        try process.run()
        // Let go at its checks, the run maps the input to read it: then cut the file to nothing.
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: paused) && Date() < deadline { usleep(2_000) }
        try FileManager.default.removeItem(atPath: paused)
        let maps = "/proc/\(process.processIdentifier)/maps"
        while !((try? String(contentsOfFile: maps, encoding: .utf8))?.contains(input) ?? true) && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(truncate(input, 0), 0)
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(
            String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            RunSummary.failure("\(input): " + AuditPipeline.inputCutMessage, exit: 1) + "\n")

        XCTAssertEqual(process.terminationReason, .exit, "killed by a signal: \(message)")
        XCTAssertEqual(process.terminationStatus, 1, message)
        XCTAssertTrue(
            message.hasSuffix(
                "iap-audit: error: \(input): the input file was truncated or rewritten while it was read (logrotate copytruncate?); this run stopped; run again once the file is stable (the next run completes it)\n"
            ), message)
        // No backtrace: every line is one of the tool's own.
        XCTAssertEqual(message.split(separator: "\n").filter { !$0.hasPrefix("iap-audit: ") }, [], message)

        XCTAssertEqual(
            FileManager.default.contents(atPath: folder + "/out/audit.xlsx"), lastGood, "the last good workbook is left as it was")
        XCTAssertEqual(try AuditStore(path: folder + "/out/audit.sqlite").runParameter("run_status"), "incomplete")

        // The next run (the file now empty) completes the stopped one.
        let next = CLIRun(["run", folder + "/in", "--out", folder + "/out"])
        XCTAssertEqual(next.status, 0, next.err)
        XCTAssertTrue(next.err.contains("did not complete; this run completes it"), next.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/out/audit.xlsx"))
    }
}
