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

/// Reconciliation works one partition at a time: facts kept in memory or spilled to files give the
/// same findings, and the ids of one billing event are reconciled together whichever partitions
/// they fall in.
final class PartitionedReconcileTests: XCTestCase {
    /// A ledger of `n` purchases of every kind of fate, spread over many partitions.
    private func ledger(_ n: Int) -> LedgerBuilder {
        let b = LedgerBuilder()
        for i in 0..<n {
            let id = String(2_000_000_400_000_000 + i)
            let time = String(format: "%02d:%02d", 8 + i / 60 % 10, i % 60)
            switch i % 5 {
            case 0: b.client(id, at: time)  // never sent
            case 1:
                b.client(id, at: time)
                b.request("r\(i)", ids: [id], granted: true, at: time)
                b.response(for: "r\(i)", items: [id], at: time)
            case 2:
                b.request("r\(i)", ids: [id], user: "u\(i)", granted: true, at: time)
                b.request("s\(i)", ids: [id], user: "v\(i)", granted: true, at: time)
                b.response(for: "r\(i)", items: [id], at: time)
                b.response(for: "s\(i)", items: [id], at: time)
            case 3:
                b.request("r\(i)", ids: [id], granted: true, at: time)
                b.response(for: "r\(i)", env: "Sandbox", items: [id], at: time)
            default:
                b.client(id, at: time)
                b.request("r\(i)", ids: [id], status: 21005, at: time)
            }
        }
        return b
    }

    func testSpilledFactsGiveTheSameFindings() throws {
        let b = ledger(1000)
        let memory = b.run().findings
        XCTAssertEqual(memory.count, 1000)
        let folder = TestPaths.scratch()
        let outcome = try b.reconcile(asOf: LedgerBuilder.muchLater, spillDirectory: folder, spillBudget: 4096)
        XCTAssertEqual(try outcome.findings.all(), memory)
        XCTAssertTrue(outcome.findings.isFile, "the findings went to a file")
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: folder).contains("findings"), "unlinked once open: a kill leaves none")
        let byKind = Dictionary(grouping: memory, by: \.kind).mapValues(\.count)
        // An overdue retryable failure is a backlog item and, not pending, a dropped order (rules 8, 14).
        XCTAssertEqual(byKind, [.droppedOrder: 400, .duplicateCredit: 200, .sandboxLeak: 200, .verificationBacklog: 200])
        XCTAssertEqual(memory.filter { $0.reason == "verify_failed" }.count, 200)
    }

    func testSpillFilesHoldWhatWasAppended() throws {
        let folder = TestPaths.scratch()
        let spill = PartitionSpill(directory: folder, budget: 10)
        for k in 0..<50 { try spill.append(k % 3, [UInt8(k), UInt8(k)]) }
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "over the budget: written out")
        for part in 0..<3 {
            let bytes = PartitionBytes()
            try spill.read(part, into: bytes)
            let expected = stride(from: part, to: 50, by: 3).flatMap { [UInt8($0), UInt8($0)] }
            XCTAssertEqual(Array(UnsafeBufferPointer(start: bytes.base, count: bytes.count)), expected)
        }
        spill.removeAll()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    /// Forty purchases each listed under two ids Apple issued (same original id and web order line
    /// item): the ids of an event fall in different partitions, and each event is still one.
    func testBillingEventsAcrossPartitions() {
        let b = LedgerBuilder()
        var split = 0
        for i in 0..<40 {
            let first = String(3_000_000_000 + i)
            let second = String(4_000_000_000 + i * 7)
            if partition(first) != partition(second) { split += 1 }
            var a = LedgerBuilder.item(first, original: "9\(i)", product: "sub", purchased: "10:00")
            a.webOrderLineItemId = "77\(i)"
            var c = LedgerBuilder.item(second, original: "9\(i)", product: "sub", purchased: "10:00")
            c.webOrderLineItemId = "77\(i)"
            if i % 2 == 0 {
                b.request("r\(i)", ids: [first], granted: true, at: "10:00")
                b.response(for: "r\(i)", receipt: [a], at: "10:00")
            }
            b.response(for: nil, receipt: [c, a], at: nil)
        }
        XCTAssertGreaterThan(split, 30, "most events span two partitions")
        let findings = b.findings()
        XCTAssertEqual(findings.filter { $0.hasPrefix("id_reissued/") }.count, 40)
        // Granted under one id: no dropped order under the other. Never granted: one dropped order.
        XCTAssertEqual(findings.filter { $0.hasPrefix("dropped_order/in_receipt_never_credited/") }.count, 20)
        XCTAssertEqual(findings.count, 60)
    }

    private func partition(_ id: String) -> Int {
        var id = id
        return id.withUTF8 { FactKey.partition(id: $0) }
    }
}
