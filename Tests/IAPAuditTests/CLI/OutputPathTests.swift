import XCTest

/// `--out` as people type it: with a trailing slash (as docs/operations.md writes `ledger/`), or naming
/// the ledger file instead of its folder.
final class OutputPathTests: XCTestCase {
    func testATrailingSlashIsNotRepeatedInTheNames() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let run = CLIRun(["run", TestPaths.repoRoot + "/sample-data", "--out", out + "//"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("Wrote \(out)/audit.sqlite and \(out)/audit.xlsx"), run.out)
        let trace = CLIRun(["trace", "2000000400594083", "--out", out + "/", "--format", "xlsx"])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/trace-2000000400594083.xlsx"))
    }

    func testTraceOutNamingTheLedgerFileSaysToUseLedger() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(CLIRun(["run", TestPaths.repoRoot + "/sample-data", "--out", out]).status, 0)
        let trace = CLIRun(["trace", "u251", "--out", out + "/audit.sqlite"])
        XCTAssertEqual(trace.status, 64)
        XCTAssertEqual(
            trace.err.components(separatedBy: "\n").first,
            "Error: --out \(out)/audit.sqlite is a file: --out names the folder a run wrote (--out DIR); a ledger file is --ledger FILE")
    }
}
