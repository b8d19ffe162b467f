import Foundation
import XCTest

@testable import IAPAuditIngest

/// A tar archive (`.tar`, or `.tar.gz` once inflated) is known by its content (`ustar` at offset 257)
/// and skipped with a note saying to extract it, like a zip archive: read as text, each member's
/// first line would be lost inside a 512-byte header and the file called mixed.
final class TarArchiveTests: XCTestCase {
    /// `tar` of three logs of a scenario (21 lines; read as text: `mixed`, 4 rejected), plain and gzipped,
    /// through the tar command line.
    func archives() throws -> String {
        let folder = TestPaths.scratch()
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        let logs = FixtureCaseTests.casesFolder + "/every-kind-at-once"
        for (name, flags) in [("logs.tar", "-cf"), ("logs.tar.gz", "-czf")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["tar", "-C", logs, flags, folder + "/in/" + name, "server.jsonl", "verify.jsonl", "client.jsonl"]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        return folder + "/in"
    }

    func testATarArchiveIsSkippedWithANoteGzippedOrNot() throws {
        let folder = try archives()
        let run = CLIRun(["run", folder, "--out", TestPaths.scratch(), "--as-of", "2026-10-10T00:00:00Z"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(run.err.contains("error:"), run.err)
        let inputs = run.out.split(separator: "\n").filter { $0.contains("/in/logs.tar") }.map {
            $0.replacingOccurrences(of: folder + "/", with: "").split(separator: " ", omittingEmptySubsequences: true).joined(
                separator: " ")
        }
        XCTAssertEqual(
            inputs,
            [
                "logs.tar skipped: tar archive (extract it first: iap-audit reads the files, not the archive)",
                "logs.tar.gz skipped: gzip: tar archive (extract it first: iap-audit reads the files, not the archive)",
            ])
        XCTAssertTrue(run.out.contains("Records: 0 in = 0 imported + 0 rejected"), run.out)
    }

    /// Only the magic at its place counts: a JSON Lines file holding `ustar` elsewhere is read.
    func testUstarElsewhereIsNotATarArchive() {
        let line = #"{"ts": "2026-10-01T09:00:00Z", "user_id": "ustar", "transaction_id": "1", "state": "purchased"}"#
        let text = String(repeating: line + "\n", count: 8)
        XCTAssertFalse(BinaryShape.isTarArchive(Data(text.utf8)))
        XCTAssertTrue(BinaryShape.isTarArchive(Data(count: 257) + Data("ustar\u{0}00".utf8) + Data(count: 248)))
    }
}
