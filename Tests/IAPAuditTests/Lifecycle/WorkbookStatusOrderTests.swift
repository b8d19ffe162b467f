import Foundation
import XCTest

/// A run's `audit.xlsx` goes in place only beside a ledger that says `run_status = complete`. A run is killed the moment
/// its workbook replaces the last one (`audit.xlsx` names another inode: renamed over it): the ledger must say complete
/// then. Found by a user test: the workbook was published before the status was set, and 4 kills of 4 left it beside
/// `incomplete`. (Before that moment the last good workbook stays in place: `FailuresToldApartTests`.)
final class WorkbookStatusOrderTests: XCTestCase {
    private func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    func testAWorkbookNeverStandsBesideAnIncompleteLedger() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let sample = TestPaths.repoRoot + "/sample-data"
        XCTAssertEqual(CLIRun(["run", "--out", out, sample]).status, 0)
        let workbook = out + "/audit.xlsx"
        var caught = 0
        for _ in 0..<4 {
            let last = inode(workbook)
            XCTAssertNotNil(last, "the last run's workbook is in place")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
            process.arguments = ["run", "--out", out, sample]
            (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
            try process.run()
            while process.isRunning {
                if inode(workbook) != last {
                    kill(process.processIdentifier, SIGKILL)
                    caught += 1
                    break
                }
            }
            process.waitUntilExit()
            let status =
                try PythonReader.run(
                    """
                    import json, sqlite3, sys
                    row = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM run_parameter WHERE name = 'run_status'").fetchone()
                    print(json.dumps(row[0]))
                    """, args: [out + "/audit.sqlite"]) as? String
            if inode(workbook) != last {
                XCTAssertEqual(status, "complete", "this run's audit.xlsx beside a ledger that says \(status ?? "nothing")")
            }
        }
        XCTAssertGreaterThan(caught, 0, "no run was caught with its workbook in place before it ended")
    }
}
