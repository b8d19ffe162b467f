import Foundation
import XCTest

/// A run killed (SIGKILL) at any point leaves a consistent lifecycle: the run is recorded whole, with its
/// findings, or not at all; the next run completes it, and the lifecycle is then the one a run never killed
/// gives (compared without the machine's times).
final class KilledRunTests: XCTestCase {
    static let readLifecycle = """
        import json, sqlite3, sys
        # Read-write: a hot journal left by the killed run is rolled back, as the next open does.
        db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
        last = db.execute("SELECT max(run) FROM audit_run").fetchone()[0]
        current = sorted(r[0] for r in db.execute("SELECT finding_id FROM finding"))
        unresolved = sorted(r[0] for r in db.execute("SELECT finding_id FROM finding_state WHERE status NOT IN ('resolved', 'expired')"))
        print(json.dumps({
            "last": last, "consistent": current == unresolved,
            "runs": db.execute("SELECT run, fingerprint, files, findings, new, still_open, resolved, reopened FROM audit_run").fetchall(),
            "history": db.execute("SELECT run, finding_id, event, detail FROM finding_history ORDER BY run, event, finding_id").fetchall(),
            "states": db.execute("SELECT finding_id, status, first_seen_run, last_seen_run, resolved_run, resolved_at, resolved_evidence "
                                 "FROM finding_state ORDER BY finding_id").fetchall()}))
        """

    func lifecycle(_ out: String) throws -> [String: Any] { try PythonReader.run(Self.readLifecycle, args: [out]) as! [String: Any] }

    func testARunKilledAnywhereIsRecordedWholeOrNotAtAll() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let config = TestPaths.repoRoot + "/sample-data/config.json"
        for day in 0..<15 { try month.deliver(day, into: root + "/feed") }
        let run = { (out: String) in ["run", root + "/feed", "--out", out, "--config", config] }

        // The night before, in two ledgers; then the second half of the month arrives.
        XCTAssertEqual(try BuiltBinary.run(run(root + "/clean")).status, 0)
        XCTAssertEqual(try BuiltBinary.run(run(root + "/killed")).status, 0)
        for day in 15..<month.days.count { try month.deliver(day, into: root + "/feed") }
        let started = Date()
        XCTAssertEqual(try BuiltBinary.run(run(root + "/clean")).status, 0)
        let duration = Date().timeIntervalSince(started)
        let clean = try lifecycle(root + "/clean")
        XCTAssertEqual(clean["last"] as? Int, 2)

        var outcomes: [Int] = []
        for point in 1...8 {
            try BuiltBinary.kill(run(root + "/killed"), after: duration * Double(point) / 8)
            let after = try lifecycle(root + "/killed")
            XCTAssertEqual(after["consistent"] as? Bool, true, "killed at \(point)/8: the findings stored are the recorded run's")
            outcomes.append(after["last"] as? Int ?? 0)
            if after["last"] as? Int == 2 { break }  // recorded whole: nothing left to kill
        }
        XCTAssertTrue(outcomes.allSatisfy { $0 == 1 || $0 == 2 }, "\(outcomes)")

        // The next run completes it: the same lifecycle as the run never killed.
        XCTAssertEqual(try BuiltBinary.run(run(root + "/killed")).status, 0)
        let completed = try lifecycle(root + "/killed")
        for key in ["runs", "history", "states"] {
            XCTAssertEqual("\(completed[key] ?? "")", "\(clean[key] ?? "")", key)
        }
    }
}
