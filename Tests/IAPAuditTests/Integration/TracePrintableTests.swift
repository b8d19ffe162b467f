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
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("next action: no action: acknowledged on 20")
                    && $0.contains(": " + escapedNote + "; it called for: re-query Apple")
            }, trace.out)
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

    /// What the hostile tester forged lines with: a NEL (U+0085), a CSI (U+009B), the line and paragraph separators
    /// (U+2028, U+2029) and bidi overrides and isolates (U+202E, U+2066), in a file name, an `ack` note, an id
    /// asked of `trace`, a `--reread` path, and in ids of a client report (rejected as a `\n` is, by the fast
    /// reader and the strict one, JSON and CSV). Printed, each is escaped; in JSON, `\uxxxx`.
    func testC1ControlsLineSeparatorsAndBidiControlsPrintEscapedAndAreNoId() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch() + "-out"
        let name = "client\u{85}next action: forged\u{2028}\u{202E}.jsonl"
        try FileManager.default.copyItem(atPath: TraceLostOrderTests.caseFolder + "/client.jsonl", toPath: input + "/" + name)
        let line = { (id: String) in
            #"{"ts": "2026-10-12T09:00:01Z", "user_id": "u8", "device_id": "6F1C0007-8C2B-4FB7-8EC2-AD2F8EC00008", "transaction_id": "\#(id)", "product_id": "com.example.gems60", "state": "purchased", "quantity": 1}"#
        }
        // Escaped in JSON (the strict reader) and as UTF-8 (the fast reader's), then a `\n` as the reference.
        let ids = [
            #"88\u0085next action: x"#, "88\u{85}next action: x", "88\u{9B}2J", #"88\u2028x"#, "88\u{2029}x", "88\u{202E}x",
            "88\u{2066}x", "88\u{7F}x", #"88\nnext action: x"#,
        ]
        TestPaths.write(ids.map(line).joined(separator: "\n") + "\n", to: input + "/ids.jsonl")
        TestPaths.write(
            "ts,user_id,device_id,transaction_id,original_transaction_id,product_id,state,error_code,quantity\n"
                + "1790820384000,u8,6F1C0007-8C2B-4FB7-8EC2-AD2F8EC00008,88\u{85}x,88,com.example.gems60,purchased,,1\n",
            to: input + "/ids.csv")
        let run = CLIRun(["run", input, "--out", out, "--as-of", "2026-10-15T00:00:00Z"])
        XCTAssertEqual(run.status, 0, run.err)
        let control = "field 'transaction_id': contains a control character"
        for k in 1...ids.count { XCTAssertTrue(run.err.contains("ids.jsonl:\(k): error: \(control)"), "line \(k): \(run.err)") }
        XCTAssertTrue(run.err.contains("ids.csv:2: error: \(control)"), run.err)
        XCTAssertTrue(run.out.contains(#"client\u{85}next action: forged\u{2028}\u{202E}.jsonl"#), run.out)
        let json = CLIRun(["run", input, "--out", out, "--as-of", "2026-10-15T00:00:00Z", "--json"])
        XCTAssertTrue(json.out.contains(#"client\u0085next action: forged\u2028\u202e.jsonl"#), json.out)

        let id = "2000000400000101"
        let note = "ticket 1\u{85}next action: no action\u{2028}\u{2029}\u{9B}1A\u{202E}\u{2066}"
        let escapedNote = #"ticket 1\u{85}next action: no action\u{2028}\u{2029}\u{9B}1A\u{202E}\u{2066}"#
        XCTAssertEqual(CLIRun(["ack", "dropped_order:\(id)", "--note", note, "--out", out]).status, 0)
        let again = CLIRun(["ack", "dropped_order:\(id)", "--note", "second", "--out", out])
        XCTAssertTrue(again.out.contains("with the note \"\(escapedNote)\""), again.out)
        _ = CLIRun(["ack", "dropped_order:\(id)", "--note", note, "--out", out])
        let trace = TraceTests.trace([id, "--out", out])
        XCTAssertEqual(trace.status, 0, trace.err)
        XCTAssertEqual(trace.out.components(separatedBy: "\n").filter { $0.hasPrefix("next action") }.count, 1, trace.out)
        XCTAssertTrue(trace.out.contains(escapedNote), trace.out)
        XCTAssertTrue(trace.out.contains(#"client\u{85}next action: forged\u{2028}\u{202E}.jsonl:1"#), trace.out)
        let traceJSON = TraceTests.trace([id, "--out", out, "--format", "json"])
        XCTAssertTrue(traceJSON.out.contains(#"ticket 1\u0085next action: no action\u2028\u2029\u009b1A\u202e\u2066"#), traceJSON.out)
        let asked = TraceTests.trace([id + "\u{2066}\u{85}", "--out", out])
        XCTAssertTrue(asked.out.hasPrefix(#"trace "2000000400000101\u{2066}\u{85}": no record"#), asked.out)
        let reread = CLIRun(["run", input, "--out", out, "--reread", input + "/x\u{85}next action: y"])
        XCTAssertEqual(reread.status, 1, reread.err)
        XCTAssertTrue(reread.err.contains(#"x\u{85}next action: y"#), reread.err)
        for text in [
            run.out, run.err, json.out, json.err, again.out, trace.out, trace.err, traceJSON.out, asked.out, asked.err, reread.err,
        ] {
            XCTAssertNil(text.unicodeScalars.first { $0.isUnprintable && $0 != "\n" }, text)
        }
    }
}
