import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReport
@testable import IAPAuditStore

/// A night that lost a log changes as many findings as the ledger holds (870,000 at 1M): the lifecycle asks the
/// ledger about them in one scan, and the Changes sheet lists the first `ChangesSheet.rowLimit`, counting the rest.
final class LargeNightTests: XCTestCase {
    /// Resolved states come back the same whether looked up one by one (few ids) or read in one scan (many).
    func testResolvedStatesAreTheSameLookedUpOrScanned() throws {
        let path = TestPaths.scratch() + "/audit.sqlite"
        _ = try AuditStore(path: path)
        let rows =
            (0..<20).map { "('dropped_order:\($0)', 'dropped_order', '\($0)', 'never_sent', 'resolved', 1, 2, 3, '[]')" }
            + ["('dropped_order:open', 'dropped_order', 'open', 'never_sent', 'open', 1, 3, NULL, '[]')"]
        _ = try PythonReader.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("INSERT INTO finding_state (finding_id, kind, transaction_id, reason, status, first_seen_run, "
                       "last_seen_run, resolved_run, resolved_evidence) VALUES " + sys.argv[2])
            db.commit()
            print("[]")
            """, args: [path, rows.joined(separator: ", ")])
        let reader = try LifecycleReader(path: path)
        // 1 id: 8 < 20 resolved, looked up; 10 ids: 80 >= 20, one scan.
        let one = try reader.resolvedStates(["dropped_order:7"])
        XCTAssertEqual(one.keys.sorted(), ["dropped_order:7"])
        XCTAssertEqual(one["dropped_order:7"]?.resolvedRun, 3)
        let asked = ["dropped_order:7", "dropped_order:open", "dropped_order:never"] + (10..<17).map { "dropped_order:\($0)" }
        let many = try reader.resolvedStates(asked)
        XCTAssertEqual(many.keys.sorted(), (["dropped_order:7"] + (10..<17).map { "dropped_order:\($0)" }).sorted())
        XCTAssertEqual(many["dropped_order:7"], one["dropped_order:7"])
        let looked = try Dictionary(uniqueKeysWithValues: asked.compactMap { id in try reader.resolvedStates([id])[id].map { (id, $0) } })
        XCTAssertEqual(many, looked, "the scan gives what the lookups give")
    }

    func testTheChangesSheetListsTheFirstRowsAndCountsTheRest() throws {
        let count = ChangesSheet.rowLimit + 2
        let changes = (0..<count).map { n in
            FindingChange(
                event: .new,
                state: FindingState(
                    id: "dropped_order:\(n)", kind: "dropped_order", transactionId: "\(n)", reason: "never_sent", status: .open,
                    firstSeenRun: 5, lastSeenRun: 5), detail: "never_sent")
        }
        let run = RunChanges(run: 5, previousRun: 4, repeated: false, fingerprint: "f", recordedAtMs: 0, changes: changes)
        let sheet = ChangesSheet.build(run)
        XCTAssertEqual(sheet.tables[0].rows.count, ChangesSheet.rowLimit)
        var listed = 0
        var last = ""
        try sheet.tables[0].rows.forEach {
            listed += 1
            if case .text(let id) = $0[1] { last = id }
        }
        XCTAssertEqual(listed, ChangesSheet.rowLimit)
        XCTAssertEqual(last, "dropped_order:\(ChangesSheet.rowLimit - 1)")
        XCTAssertEqual(
            sheet.tables[1].title,
            "2 more changes not listed here: all \(count) are in audit.sqlite (table finding_history, run 5) and in run --json's changes")
        XCTAssertTrue(sheet.tables[0].title?.hasPrefix("Run 5, against run 4: \(count) new, 0 still_open") == true)
    }
}
