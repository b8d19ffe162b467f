import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// A run killed after it stored its findings, before it completed, never paged what it found new: the next run pages
/// it (found by the night-by-night simulation: about one kill -9 in five lost its page for good).
final class UndeliveredPagesTests: XCTestCase {
    func testARunKilledAfterStoringItsFindingsHasTheNextRunPageThem() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let exports = root + "/exports", ledger = root + "/ledger"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        func night(_ day: Int) throws -> (AuditResult, RunVerdict) {
            for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
                let lines = month.days[day].files[name] ?? []
                let path = exports + "/" + name
                let before = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                TestPaths.write(before + lines.map { $0 + "\n" }.joined(), to: path)
            }
            let run = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: ledger))
            return (run, try RunAlerts.verdict(run, rules: AlertRules(failOn: .new), nowMs: 0))
        }
        _ = try night(0)
        let (second, paged) = try night(1)
        let newIds = try XCTUnwrap(second.snapshot.changes).changes.filter { $0.event == .new && $0.state.isProblem }.map(\.state.id)
        XCTAssertFalse(newIds.isEmpty, "the second night finds new problems")
        XCTAssertTrue(paged.reasons.contains { $0.hasPrefix("\(newIds.count) new problem finding(s)") }, "\(paged.reasons)")
        // What a kill after the findings were stored leaves: the run recorded, not complete, its verdict not delivered.
        try PythonReader.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            db.execute("UPDATE run_parameter SET value = 'incomplete' WHERE name = 'run_status'")
            db.execute("UPDATE run_parameter SET value = '1' WHERE name = 'delivered_run'")
            db.commit()
            print("[]")
            """, args: [ledger])
        let (third, verdict) = try night(2)
        let still = Set(try XCTUnwrap(third.snapshot.changes).changes.filter { $0.event == .stillOpen }.map(\.state.id))
        let unpaged = newIds.filter(still.contains)
        XCTAssertFalse(unpaged.isEmpty)
        let reason = try XCTUnwrap(verdict.reasons.first { $0.contains("new since a run that did not complete") }, "\(verdict.reasons)")
        XCTAssertTrue(reason.hasPrefix("\(unpaged.count) problem finding(s) new since a run that did not complete"), reason)
        for id in unpaged.prefix(RunAlerts.namedIds) { XCTAssertTrue(reason.contains(id), "\(id) in \(reason)") }
        // Delivered now: the night after pages them no more.
        let (_, fourth) = try night(3)
        XCTAssertFalse(fourth.reasons.contains { $0.contains("did not complete") }, "\(fourth.reasons)")
    }
}
