import Foundation
import XCTest

@testable import IAPAudit

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
        var produced = 0
        let counts = [FindingCount(kind: .droppedOrder, reason: "never_sent", count: ReportBuilder.findingRowLimit + 5)]
        let stream = FindingStream(counts: counts, problemsPerDay: []) { _, limit, body in
            for i in 0..<min(limit, ReportBuilder.findingRowLimit + 5) {
                produced += 1
                try body(Finding(kind: .droppedOrder, reason: "never_sent", transactionId: String(i)))
            }
        }
        let sheet = ReportBuilder.findingSheet("dropped_order", stream, [.droppedOrder])
        XCTAssertEqual(produced, 0, "nothing read before the sheet is written")
        XCTAssertEqual(sheet.tables[0].rows.count, ReportBuilder.findingRowLimit)
        XCTAssertEqual(
            sheet.tables[1].title,
            "5 more findings not listed here: all \(ReportBuilder.findingRowLimit + 5) are in audit.sqlite (table finding)")
        var rows = 0
        try sheet.tables[0].rows.forEach { _ in rows += 1 }
        XCTAssertEqual(rows, ReportBuilder.findingRowLimit)
        XCTAssertEqual(produced, ReportBuilder.findingRowLimit)
    }
}
