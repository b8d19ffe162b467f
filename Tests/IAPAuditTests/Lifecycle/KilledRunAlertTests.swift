import Foundation
import XCTest

/// A run killed after its import had stored a file rewritten empty: the next run finds the file unchanged and does
/// not read it, yet says `input_emptied` and pages under `--fail-on-rejected` (kept pending in the ledger until a run
/// completes), once.
final class KilledRunAlertTests: XCTestCase {
    func testAnEmptiedFileStillAlertsAfterAKilledRun() throws {
        let (input, out) = try scratchSample()
        let run = { (environment: [String: String]) in
            try BuiltBinary.run(["run", input, "--out", out, "--fail-on-rejected"], environment: environment)
        }
        XCTAssertEqual(try run([:]).status, 0)
        let server = input + "/server.jsonl"
        try Data().write(to: URL(fileURLWithPath: server))
        let killed = try run(["IAP_AUDIT_KILL_AT": "import_files"])
        XCTAssertEqual(killed.status, -SIGKILL, killed.err)

        let next = try run([:])
        XCTAssertEqual(next.status, 3, next.err)
        let said =
            "found by an earlier run that did not complete, or a close: \(server): holds no record now (0 bytes): the 1,904 records the ledger "
            + "held from it were removed with its old content"
        XCTAssertTrue(next.err.contains("iap-audit: warning: " + said), next.err)
        XCTAssertTrue(next.err.contains("iap-audit: alert: " + said), next.err)

        // Said once: the run that said it completed.
        let again = try run([:])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertFalse(again.err.contains("holds no record now"), again.err)
    }
}
