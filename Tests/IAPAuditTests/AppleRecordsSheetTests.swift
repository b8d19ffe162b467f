import Foundation
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

/// The Apple Records sheet lists at most `appleRecordRowLimit` records (a worksheet holds 1,048,576
/// rows) and says how many more are in audit.sqlite.
final class AppleRecordsSheetTests: XCTestCase {
    private func snapshot(records: Int) -> AuditSnapshot {
        var snapshot = AuditSnapshot(
            files: [], rejections: RecordStream([]), findings: FindingStream([]), statuses: [],
            latency: LatencySummary(requests: 0, p50Ms: nil, p90Ms: nil, p95Ms: nil, p99Ms: nil, maxMs: nil), recordCounts: [:],
            parameters: [:])
        snapshot.appleRecords = RecordStream(
            (1...records).map {
                AppleRecordSummary(
                    location: SourceLocation(file: "n.jsonl", line: $0), source: "notification_v2", signature: "verified",
                    environment: "Production", bundleId: nil, notification: "DID_RENEW", notificationUUID: "u\($0)", signedDateMs: 0,
                    requestId: nil, status: 0, transactionIds: "\($0)", notes: "[]")
            })
        return snapshot
    }

    func testAtTheLimitEveryRecordIsListed() {
        let sheet = ReportBuilder.appleRecordsSheet(snapshot(records: ReportBuilder.appleRecordRowLimit))
        XCTAssertEqual(sheet.tables.count, 1)
        XCTAssertEqual(sheet.tables[0].rows.count, ReportBuilder.appleRecordRowLimit)
    }

    func testOverTheLimitTheRestIsCountedInANote() {
        let sheet = ReportBuilder.appleRecordsSheet(snapshot(records: ReportBuilder.appleRecordRowLimit + 7))
        XCTAssertEqual(sheet.tables[0].rows.count, ReportBuilder.appleRecordRowLimit)
        XCTAssertEqual(
            sheet.tables[1].title,
            "7 more records not listed here: all \(ReportBuilder.appleRecordRowLimit + 7) are in audit.sqlite "
                + "(table apple_record, view signature_summary)")
    }
}
