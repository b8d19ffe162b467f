import Foundation
import XCTest

/// A close holds the output folder's lock from its run to its own tables and workbook: a run started in between is
/// refused, and the close completes. (It let the lock go between the two: a nightly run starting then took the
/// folder, and the close failed with "another iap-audit run is writing this folder".) The instant is reached with
/// `IAP_AUDIT_PAUSE_AT` (PhaseTimer.checkpoint), which no timing would reach.
final class CloseHoldsLockTests: XCTestCase {
    var sampleData: String { TestPaths.repoRoot + "/sample-data" }

    func testARunStartedBetweenTheClosesRunAndItsTablesIsRefused() throws {
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", "--out", out, sampleData]).status, 0)
        let paused = TestPaths.scratch("pause") + "/close-paused"
        let closeErr = TestPaths.scratch("close-err") + "/stderr"
        _ = FileManager.default.createFile(atPath: closeErr, contents: nil)

        let close = Process()
        close.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        close.arguments = ["close", "--period", "2026-10", "--prices", sampleData + "/prices.csv", "--out", out, sampleData]
        close.environment = ProcessInfo.processInfo.environment.merging(["IAP_AUDIT_PAUSE_AT": "close_run:" + paused]) { _, new in new }
        close.standardOutput = FileHandle.nullDevice
        close.standardError = FileHandle(forWritingAtPath: closeErr)
        try close.run()
        defer { if close.isRunning { close.terminate() } }
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: paused), close.isRunning, Date() < deadline { usleep(20_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: paused), "the close never reached the end of its run")

        // The close is between its run and its tables: the folder is still its own.
        let night = try BuiltBinary.run(["run", "--out", out, sampleData])
        XCTAssertEqual(night.status, 75, "refused by the lock: try again later (EX_TEMPFAIL): \(night.err)")
        XCTAssertTrue(night.err.contains("another iap-audit run is writing this folder; try again when it has finished"), night.err)

        try FileManager.default.removeItem(atPath: paused)
        close.waitUntilExit()
        let err = String(decoding: FileManager.default.contents(atPath: closeErr) ?? Data(), as: UTF8.self)
        XCTAssertEqual(close.terminationStatus, 0, err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/close-2026-10.xlsx"), err)
        // Once the close is done, the night runs.
        XCTAssertEqual(try BuiltBinary.run(["run", "--out", out, sampleData]).status, 0)
    }
}
