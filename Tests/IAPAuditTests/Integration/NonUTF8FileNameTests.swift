import Foundation
import XCTest

@testable import IAPAuditCLI

#if canImport(Glibc)
    import Glibc
#endif

/// A file whose name is not UTF-8 (byte 0xff) is listed under its name with the byte shown as `\xFF`, refused
/// with a note saying why, and alerts under --fail-on-rejected (it was skipped as "cannot be examined", no alert).
final class NonUTF8FileNameTests: XCTestCase {
    func testAFileNamedWithByteFFIsShownEscapedRefusedAndAlerts() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        let client = try String(contentsOfFile: TraceLostOrderTests.caseFolder + "/client.jsonl", encoding: .utf8)
        TestPaths.write(client, to: input + "/client.jsonl")
        var name = Array((input + "/day\u{e9}").utf8).map { CChar(bitPattern: $0) }
        name += [CChar(bitPattern: 0xFF)] + Array(".jsonl".utf8).map { CChar(bitPattern: $0) } + [0]
        let file = try XCTUnwrap(fopen(name, "w"))
        fputs(client, file)
        fclose(file)

        let run = CLIRun(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(run.status, 3, run.err)
        let shown = input + "/day\u{e9}\\xFF.jsonl"
        XCTAssertTrue(run.out.contains("  \(shown)  skipped: file name is not UTF-8 (shown with \\xNN"), run.out)
        XCTAssertTrue(
            run.err.contains(
                "iap-audit: alert: 1 file(s) this run brought have a name that is not UTF-8 (not read; shown with \\xNN): \(shown)"),
            run.err)
        XCTAssertTrue(run.out.contains("  \(input)/client.jsonl  client_report: 1 in = 1 imported + 0 rejected"), run.out)
        // A re-run brings nothing new: no alert.
        let again = CLIRun(["run", input, "--out", out, "--fail-on-rejected"])
        XCTAssertEqual(again.status, 0, again.err)
    }
}
