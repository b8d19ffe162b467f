import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// `trace` shows where each finding stands across runs (docs/operations.md): open since which run, marked
/// known by `iap-audit ack` (with its note, also in the next action), and resolved by a later run (when,
/// by which records). The lost-order case's client log alone first (a purchase the server never saw),
/// then its server log and Apple's answer.
final class TraceLifecycleTests: XCTestCase {
    func testOpenAcknowledgedResolved() throws {
        let folder = TraceLostOrderTests.caseFolder
        let input = TestPaths.scratch("tracelifecycleinput")
        let out = TestPaths.scratch("tracelifecycleout")
        let run = {
            var options = AuditOptions(paths: [input], outputDirectory: out)
            options.asOfMs = Timestamp.parseMs("2026-10-15T00:00:00Z")
            _ = try AuditPipeline.run(options)
        }
        try FileManager.default.copyItem(atPath: folder + "/client.jsonl", toPath: input + "/client.jsonl")
        try run()
        let id = "2000000400000101"
        let verdict = { (text: String) in
            text.components(separatedBy: "\n").filter { $0.hasPrefix("  ") || $0.hasPrefix("next action") || $0.contains("findings:") }
                .joined(separator: "\n").replacingOccurrences(of: input + "/", with: "")
        }

        let open = TraceTests.trace([id, "--out", out])
        XCTAssertEqual(open.status, 0, open.err)
        XCTAssertEqual(
            verdict(open.out),
            """
            findings:
              dropped_order/never_sent (error, apple_confirmation claimed): client reported purchased; no server request carried it
                dropped_order:2000000400000101: open since run 1
            next action: re-query Apple Get Transaction Info for 2000000400000101: only the client reports the purchase; it never reached the server
            """)

        let ack = CLIRun(["ack", "dropped_order:\(id)", "--note", "ticket 4411: asked Apple", "--out", out])
        XCTAssertEqual(ack.status, 0, ack.err)
        let known = TraceTests.trace([id, "--out", out, "--format", "json"])
        let finding = try XCTUnwrap(
            ((try JSONSerialization.jsonObject(with: Data(known.out.utf8)) as? [String: Any])?["transactions"] as? [[String: Any]])?
                .first?["findings"] as? [[String: Any]])
        XCTAssertEqual(finding.first?["finding_id"] as? String, "dropped_order:\(id)")
        XCTAssertEqual(finding.first?["status"] as? String, "acknowledged")
        XCTAssertEqual(finding.first?["note"] as? String, "ticket 4411: asked Apple")
        let text = verdict(TraceTests.trace([id, "--out", out]).out).components(separatedBy: "\n")
        XCTAssertTrue(text[2].hasPrefix("    dropped_order:\(id): acknowledged on 20"), text[2])
        XCTAssertTrue(text[2].hasSuffix(": ticket 4411: asked Apple (since run 1)"), text[2])
        // Acknowledged, it is in hand: no action, who and why, and what it called for.
        XCTAssertTrue(text[3].hasPrefix("next action: no action: acknowledged on 20"), text[3])
        XCTAssertTrue(text[3].contains(": ticket 4411: asked Apple; it called for: re-query Apple"), text[3])
        XCTAssertTrue(text[3].hasSuffix("it never reached the server"), text[3])

        for name in ["server.jsonl", "verify.jsonl"] {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: input + "/" + name)
        }
        try run()
        let resolved = TraceTests.trace([id, "--out", out])
        XCTAssertEqual(resolved.status, 0, resolved.err)
        XCTAssertEqual(
            verdict(resolved.out),
            """
            findings: none
            resolved findings:
              dropped_order/never_sent (dropped_order:2000000400000101): resolved in run 2 (2026-10-12T09:00:02.000Z) by server.jsonl:1, verify.jsonl:1
            next action: delivered: credited on 2026-10-12T09:00:02.000Z to u7 (request r7a, quantity 1 as Apple lists it); Apple confirms payment (verify.jsonl:1)
            """)
    }
}
