import Foundation
import XCTest

/// stderr lists the rejected lines this run read, not those earlier runs read and printed already: a nightly mail
/// showed the same old 50 every night, and the night's new rejection was not among them (found by an on-call user
/// test).
final class NightlyDiagnosticsTests: XCTestCase {
    func testOnlyThisRunsRejectionsArePrinted() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let good = #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "state": "purchased"}"#
        TestPaths.write(good + "\n{\"ts\": cut\n", to: input + "/client.jsonl")
        TestPaths.write(good.replacingOccurrences(of: "100", with: "200") + "\n", to: input + "/more.jsonl")
        func run() -> [String] {
            var err: [String] = []
            _ = CommandLineInterfaceRunner.main(["run", input, "--out", out], out: { _ in }, err: { err.append($0) })
            return err.filter { !$0.hasPrefix("iap-audit: warning:") }
        }
        XCTAssertEqual(run(), ["\(input)/client.jsonl:2: error: invalid JSON: unexpected character at line 1, column 8"])
        // Night 2: another file grows by a bad line; the old one is not printed again.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: input + "/more.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"ts\": also cut\n".utf8))
        try handle.close()
        XCTAssertEqual(
            run(),
            [
                "\(input)/more.jsonl:2: error: invalid JSON: unexpected character at line 1, column 8",
                "iap-audit: 1 more rejected records (1 of them read by earlier runs): see table rejection in \(out)/audit.sqlite, "
                    + "and the Rejected sheet",
            ])
        // A re-run reads nothing: it points at the table.
        XCTAssertEqual(
            run(),
            [
                "iap-audit: 2 more rejected records (2 of them read by earlier runs): see table rejection in \(out)/audit.sqlite, and the Rejected sheet"
            ])
    }

    /// A file read again whole (its last line had no line feed yet) prints the rejected lines it did not hold before,
    /// not its old ones again (found by an on-call retest: 50 old lines printed, the night's new one counted unseen).
    func testAFileReadAgainWholePrintsOnlyItsNewRejections() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        let good = #"{"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "transaction_id": "100", "state": "purchased"}"#
        let log = input + "/client.jsonl"
        TestPaths.write(good + "\n{\"ts\": cut\n{\"ts\": also", to: log)  // the writer is mid-line
        func run() -> [String] {
            var err: [String] = []
            _ = CommandLineInterfaceRunner.main(["run", input, "--out", out], out: { _ in }, err: { err.append($0) })
            return err.filter { !$0.hasPrefix("iap-audit: warning:") }
        }
        XCTAssertEqual(run().count, 2, "both rejected lines are the first run's")
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log))
        handle.seekToEndOfFile()
        handle.write(Data(" cut\n".utf8))  // the line finished: still bad, but another line than the one held
        try handle.close()
        XCTAssertEqual(
            run(),
            [
                "\(log):3: error: invalid JSON: unexpected character at line 1, column 8",
                "iap-audit: 1 more rejected records (1 of them read by earlier runs): see table rejection in \(out)/audit.sqlite, "
                    + "and the Rejected sheet",
            ])
    }
}
