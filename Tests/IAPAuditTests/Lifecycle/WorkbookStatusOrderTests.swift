import Foundation
import XCTest

/// `audit.xlsx` goes in place only beside a ledger that says `run_status = complete` (README: a killed run "leaves no
/// workbook, never one that no longer matches audit.sqlite"). A run is killed the moment its workbook reappears (it
/// removes the last one as it starts): the ledger must say complete then. Found by a user test: the workbook was
/// published before the status was set, and 4 kills of 4 left it beside `incomplete`.
final class WorkbookStatusOrderTests: XCTestCase {
    func testAWorkbookNeverStandsBesideAnIncompleteLedger() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let sample = TestPaths.repoRoot + "/sample-data"
        XCTAssertEqual(CLIRun(["run", "--out", out, sample]).status, 0)
        let workbook = out + "/audit.xlsx"
        var caught = 0
        for _ in 0..<4 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
            process.arguments = ["run", "--out", out, sample]
            (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
            try process.run()
            var removed = false
            while process.isRunning {
                let exists = FileManager.default.fileExists(atPath: workbook)
                if !exists { removed = true }
                if removed && exists {
                    kill(process.processIdentifier, SIGKILL)
                    caught += 1
                    break
                }
            }
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: workbook) else { continue }
            let status =
                try PythonReader.run(
                    """
                    import json, sqlite3, sys
                    row = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM run_parameter WHERE name = 'run_status'").fetchone()
                    print(json.dumps(row[0]))
                    """, args: [out + "/audit.sqlite"]) as? String
            XCTAssertEqual(status, "complete", "audit.xlsx beside a ledger that says \(status ?? "nothing")")
        }
        XCTAssertGreaterThan(caught, 0, "no run was caught with its workbook back before it ended")
    }
}
