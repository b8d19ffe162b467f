import Foundation
import XCTest

@testable import IAPAuditModel

/// The midnight edge (docs/semantics.md rule 26, docs/findings.md Lifecycle) over three nights on the built pipeline,
/// the ledger read back with Python's sqlite3: a purchase at 23:59 whose request is in the next day's log never pages,
/// and one whose request never comes is pending, then expired into its dropped order (not "resolved by" anything).
final class MidnightEdgeTests: XCTestCase {
    typealias Day = NextDayCreditTests
    static let (t1, t2) = ("2000000000000031", "2000000000000032")

    /// Night 1: u1 buys T1 at 23:59 and u2 buys T2 at 23:58; the server log ends at 23:59:30 (u9's credited purchase).
    /// Night 2: the request of T1 at 00:01, credited; nothing for T2; the log ends 2026-10-02T20:00 (inside T2's grace).
    /// Night 3: the log ends 2026-10-03T09:00: T2 is a dropped order now.
    static func write(night: Int, _ feed: String) {
        let folder = feed + "/night\(night)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        switch night {
        case 1:
            TestPaths.write(
                Day.purchase("2026-10-01T23:58:00Z", "u2", t2) + "\n" + Day.purchase("2026-10-01T23:59:00Z", "u1", t1) + "\n",
                to: folder + "/client.jsonl")
            TestPaths.write(Day.request("r9", "2026-10-01T23:59:30Z", "u9", "2000000000000039") + "\n", to: folder + "/server.jsonl")
            TestPaths.write(Day.answer("r9", "2026-10-01T23:59:31Z", "2000000000000039") + "\n", to: folder + "/verify.jsonl")
        case 2:
            TestPaths.write(
                Day.request("r1", "2026-10-02T00:01:00Z", "u1", t1) + "\n"
                    + Day.request("r8", "2026-10-02T20:00:00Z", "u8", "2000000000000038")
                    + "\n", to: folder + "/server.jsonl")
            TestPaths.write(
                Day.answer("r1", "2026-10-02T00:01:01Z", t1) + "\n" + Day.answer("r8", "2026-10-02T20:00:01Z", "2000000000000038") + "\n",
                to: folder + "/verify.jsonl")
        default:
            TestPaths.write(Day.request("r7", "2026-10-03T09:00:00Z", "u7", "2000000000000037") + "\n", to: folder + "/server.jsonl")
            TestPaths.write(Day.answer("r7", "2026-10-03T09:00:01Z", "2000000000000037") + "\n", to: folder + "/verify.jsonl")
        }
    }

    func testAPurchaseAtTheEdgeIsPendingThenResolvedOrExpired() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        var statuses: [Int32] = []
        for night in 1...3 {
            Self.write(night: night, feed)
            let run = try BuiltBinary.run(["run", feed, "--out", out, "--fail-on", "new"])
            statuses.append(run.status)
        }
        // Only night 3 pages: T2's dropped order, once its log passed the grace.
        XCTAssertEqual(statuses, [0, 0, 3])
        let db =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                def rows(sql): return [["NULL" if v is None else v for v in r] for r in db.execute(sql)]
                print(json.dumps({
                    "runs": rows("SELECT run, findings, new, still_open, resolved, reopened, expired FROM audit_run ORDER BY run"),
                    "states": rows("SELECT finding_id, status, first_seen_run, last_seen_run, resolved_run, resolved_at, resolved_evidence "
                                   "FROM finding_state ORDER BY finding_id"),
                    "history": rows("SELECT run, finding_id, event, detail FROM finding_history ORDER BY run, finding_id"),
                    "facts": rows("SELECT finding_id, facts FROM finding ORDER BY finding_id")}))
                """, args: [out + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual(
            db["runs"] as? [[AnyHashable]], [[1, 2, 2, 0, 0, 0, 0], [2, 1, 0, 1, 1, 0, 0], [3, 1, 1, 0, 0, 0, 1]])
        let (p1, p2, d2) = ("pending_evidence:\(Self.t1)", "pending_evidence:\(Self.t2)", "dropped_order:\(Self.t2)")
        XCTAssertEqual(
            db["states"] as? [[AnyHashable]],
            [
                [d2, "open", 3, 3, "NULL", "NULL", "[]"],
                [
                    p1, "resolved", 1, 1, 2, "2026-10-02T00:01:00.000Z",
                    "[\"\(feed)/night2/server.jsonl:1\",\"\(feed)/night2/verify.jsonl:1\"]",
                ],
                [p2, "expired", 1, 2, 3, "2026-10-03T09:00:01.000Z", "[]"],
            ])
        XCTAssertEqual(
            db["history"] as? [[AnyHashable]],
            [
                [1, p1, "new", "awaiting_server_log"], [1, p2, "new", "awaiting_server_log"],
                [2, p1, "resolved", "resolved by 2 new record(s): \(feed)/night2/server.jsonl:1, \(feed)/night2/verify.jsonl:1"],
                [3, d2, "new", "never_sent"],
                [3, p2, "expired", "expired: no new record of \(Self.t2) and its grace ran out; it is \(d2) (never_sent) now"],
            ])
        XCTAssertEqual(db["facts"] as? [[AnyHashable]], [[d2, "{\"reported_ms\":1790899080000}"]])
    }
}
