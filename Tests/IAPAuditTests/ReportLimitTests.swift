import Foundation
import Synchronization
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// A worksheet holds 1,048,576 rows: the finding and Rejected sheets list at most their limit and say
/// how many more are in audit.sqlite; the rows are read from their stream only while written.
final class ReportLimitTests: XCTestCase {
    private func snapshot(findings: FindingStream = FindingStream([]), rejections: Int = 0) -> AuditSnapshot {
        AuditSnapshot(
            files: [],
            rejections: RecordStream(
                (0..<rejections).map { Rejection(location: SourceLocation(file: "bad.jsonl", line: $0 + 1), reason: "x", rawText: "y") }),
            findings: findings, statuses: [],
            latency: LatencySummary(requests: 0, p50Ms: nil, p90Ms: nil, p95Ms: nil, p99Ms: nil, maxMs: nil), recordCounts: [:],
            parameters: [:])
    }

    func testRejectedSheetStopsAtItsLimit() throws {
        let sheet = ReportBuilder.rejectedSheet(snapshot(rejections: ReportBuilder.rejectedRowLimit + 3))
        XCTAssertEqual(sheet.tables[0].rows.count, ReportBuilder.rejectedRowLimit)
        XCTAssertEqual(try sheet.tables[0].rows.all().count, ReportBuilder.rejectedRowLimit)
        XCTAssertEqual(
            sheet.tables[1].title,
            "3 more rejected records not listed here: all \(ReportBuilder.rejectedRowLimit + 3) are in audit.sqlite (table rejection)")
    }

    func testFindingSheetStopsAtItsLimit() throws {
        let produced = Mutex(0)
        let counts = [FindingCount(kind: .droppedOrder, reason: "never_sent", count: ReportBuilder.findingRowLimit + 5)]
        let stream = FindingStream(counts: counts, problemsPerDay: []) { _, limit, body in
            for i in 0..<min(limit, ReportBuilder.findingRowLimit + 5) {
                produced.withLock { $0 += 1 }
                try body(Finding(kind: .droppedOrder, reason: "never_sent", transactionId: String(i)))
            }
        }
        let sheet = ReportBuilder.findingSheet("dropped_order", stream, [.droppedOrder])
        XCTAssertEqual(produced.withLock { $0 }, 0, "nothing read before the sheet is written")
        XCTAssertEqual(sheet.tables[0].rows.count, ReportBuilder.findingRowLimit)
        XCTAssertEqual(
            sheet.tables[1].title,
            "5 more findings not listed here: all \(ReportBuilder.findingRowLimit + 5) are in audit.sqlite (table finding)")
        var rows = 0
        try sheet.tables[0].rows.forEach { _ in rows += 1 }
        XCTAssertEqual(rows, ReportBuilder.findingRowLimit)
        XCTAssertEqual(produced.withLock { $0 }, ReportBuilder.findingRowLimit)
    }
}

/// A rejected line longer than what is kept says so where it is cut: in table `rejection` (4,000
/// characters) and on the Rejected sheet (2,000), read back by Python's sqlite3 and openpyxl.
final class RejectedTextCutTests: XCTestCase {
    func testLongRejectedLineEndsInACutNoteInTheDatabaseAndOnTheSheet() throws {
        let input = TestPaths.scratch() + "/in", out = TestPaths.scratch()
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let good = #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"1","state":"purchased"}"#
        let long =
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","state":"purchased","note":""# + String(repeating: "x", count: 5000) + #""}"#
        let short = #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","state":"purchased"}"#
        TestPaths.write([good, long, short].joined(separator: "\n"), to: input + "/client.jsonl")
        XCTAssertEqual(CLIRun(["run", input, "--out", out]).status, 0)
        let note = " … [cut: \(long.count) characters in all; the whole line is at its file:line]"
        let read = try rejectedTexts(out)
        XCTAssertEqual(read?["stored"], [String(long.prefix(4000)) + note, short])
        XCTAssertEqual(read?["shown"], [String(long.prefix(2000)) + note, short])
    }

    /// A receipt the cut ends in is a part of one: the sheet gives its size as a lower bound and no hash
    /// (found by a user: `[receipt: 3,939 bytes of base64, SHA-256 cfda…]` for an 11,236-character one).
    func testAReceiptCutWithItsLineIsNotSizedOrHashedAsAWhole() throws {
        let input = TestPaths.scratch() + "/in", out = TestPaths.scratch()
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let receipt = "MIIr" + String(repeating: "QUJDRA+/", count: 1404)
        XCTAssertEqual(receipt.count, 11_236)
        let head = #"{"request_id": "r1", "received_at": "yesterday", "receipt_data": ""#
        let line = head + receipt + #""}"#
        TestPaths.write(line, to: input + "/verify.jsonl")
        XCTAssertEqual(CLIRun(["run", input, "--out", out]).status, 0)
        XCTAssertEqual(line.count, 11_304)
        let note = " … [cut: 11304 characters in all; the whole line is at its file:line]"
        let read = try rejectedTexts(out)
        XCTAssertEqual(read?["stored"], [String(line.prefix(4000)) + note])
        XCTAssertEqual(
            read?["shown"],
            [head + "[receipt: at least 3,934 characters of base64, cut with the line (no SHA-256 of a part)]" + note])
    }

    /// The texts of table `rejection` and of the Rejected sheet, in line order.
    func rejectedTexts(_ out: String) throws -> [String: [String]]? {
        try PythonReader.run(
            """
            import json, sqlite3, sys, openpyxl
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            stored = [r[0] for r in db.execute("SELECT raw_text FROM rejection ORDER BY line")]
            ws = openpyxl.load_workbook(sys.argv[1] + "/audit.xlsx", read_only=True)["Rejected"]
            rows = [r for r in ws.iter_rows(values_only=True)]
            header = [i for i, r in enumerate(rows) if r and r[0] == "file"][0]
            shown = [r[3] for r in rows[header + 1:] if r and r[0]]
            print(json.dumps({"stored": stored, "shown": shown}))
            """, args: [out]) as? [String: [String]]
    }
}
