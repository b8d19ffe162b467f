import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// What `trace` prints from the ledger is one line per line it means: an `ack` note's line break cannot
/// forge a "next action:" line, nor can a file name's; an ANSI escape sequence (in a file name, an id asked)
/// is shown escaped, never sent to the terminal.
final class TracePrintableTests: XCTestCase {
    func testAnAckNoteAndARecordIdPrintEscapedOnTheirLine() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        // The file name holds ESC [2J (clear the screen), ESC [31m (red) and a line break forging a line of its own.
        let name = "client\u{1B}[2J\u{1B}[31m\nnext action: forged.jsonl"
        try FileManager.default.copyItem(atPath: TraceLostOrderTests.caseFolder + "/client.jsonl", toPath: input + "/" + name)
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.asOfMs = Timestamp.parseMs("2026-10-15T00:00:00Z")
        _ = try AuditPipeline.run(options)
        let id = "2000000400000101"
        let note = "ticket 1\nnext action: no action: Apple refunded it\r\u{1B}[1A"
        let ack = CLIRun(["ack", "dropped_order:\(id)", "--note", note, "--out", out])
        XCTAssertEqual(ack.status, 0, ack.err)
        let again = CLIRun(["ack", "dropped_order:\(id)", "--note", "second", "--out", out])
        XCTAssertEqual(again.status, 0, again.err)
        let escapedNote = #"ticket 1\nnext action: no action: Apple refunded it\r\u{1B}[1A"#
        XCTAssertEqual(again.out.components(separatedBy: "\n").count, 2, again.out)
        XCTAssertTrue(again.out.contains("with the note \"\(escapedNote)\""), again.out)

        _ = CLIRun(["ack", "dropped_order:\(id)", "--note", note, "--out", out])
        let trace = TraceTests.trace([id, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        let lines = trace.out.components(separatedBy: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("next action") }.count, 1, trace.out)
        XCTAssertTrue(lines.contains { $0.hasPrefix("next action: re-query Apple") && $0.hasSuffix(": " + escapedNote) }, trace.out)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    dropped_order:\(id): acknowledged on 20") && $0.contains(escapedNote) }, trace.out)
        XCTAssertFalse(trace.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, trace.out)
        XCTAssertTrue(trace.out.contains(#"client\u{1B}[2J\u{1B}[31m\nnext action: forged.jsonl:1"#), trace.out)
        // An id asked with an escape sequence: shown escaped, and a finding id so written refused, escaped.
        let asked = TraceTests.trace([id + "\u{1B}[2J", "--out", out])
        XCTAssertTrue(asked.out.hasPrefix(#"trace "2000000400000101\u{1B}[2J": no record"#), asked.out)
        let refused = CLIRun(["ack", "dropped_order:\(id)\u{1B}[2J", "--note", "x", "--out", out])
        XCTAssertEqual(refused.status, 1, refused.err)
        XCTAssertTrue(refused.err.contains(#"dropped_order:2000000400000101\u{1B}[2J"#), refused.err)
        for text in [asked.out, asked.err, refused.out, refused.err] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, text)
        }
    }
}
