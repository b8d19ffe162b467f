import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// The sample month fed one day a night into one ledger: after every run the lifecycle (table audit_run and
/// finding_history, read back with Python's sqlite3) is what the findings of consecutive runs give by set
/// arithmetic done here, independently of the pipeline; a re-run adds nothing.
final class NightlyLedgerTests: XCTestCase {
    static let readFindings = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps([[kind + ":" + t, reason] for kind, t, reason in db.execute("SELECT kind, transaction_id, reason FROM finding")]))
        """

    static let readLifecycle = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps({
            "runs": db.execute("SELECT run, files, findings, new, still_open, resolved + expired, reopened FROM audit_run ORDER BY run").fetchall(),
            "expired": db.execute("SELECT run, finding_id FROM finding_history WHERE event = 'expired' ORDER BY run, finding_id").fetchall(),
            "history": db.execute("SELECT run, event, finding_id FROM finding_history ORDER BY rowid").fetchall(),
            "states": db.execute("SELECT finding_id, status, first_seen_run, last_seen_run, resolved_run FROM finding_state").fetchall(),
            "last_resolved": db.execute("SELECT finding_id, resolved_at, resolved_evidence FROM finding_state WHERE resolved_run = 31").fetchall(),
            "dump": [line for line in db.iterdump() if line.startswith(('INSERT INTO "audit_run"', 'INSERT INTO "finding_history"',
                                                                         'INSERT INTO "finding_state"', 'INSERT INTO "run_input"'))]}))
        """

    /// The Changes sheet's title and its rows' (event, finding_id).
    static let readChanges = """
        import json, openpyxl, sys
        rows = list(openpyxl.load_workbook(sys.argv[1], read_only=True)["Changes"].iter_rows(values_only=True))
        book = openpyxl.load_workbook(sys.argv[1], read_only=True)
        kinds = [ws for ws in book.worksheets if ws.title not in ("Summary", "Changes", "Verify Status", "Apple Records", "Rejected")]
        first_seen = []
        for ws in kinds:
            table = list(ws.iter_rows(values_only=True))
            at = [table[0].index(name) for name in ("finding_id", "status", "first_seen_run")]
            first_seen += [[r[i] for i in at] for r in table[1:] if r[0] is not None]
        print(json.dumps({"title": rows[0][0], "rows": [[r[0], r[1]] for r in rows[2:]], "first_seen": sorted(first_seen)}))
        """

    func testAMonthFedNightByNight() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        XCTAssertEqual(month.days.count, 31)
        var options = AuditOptions(paths: [feed], outputDirectory: out)
        options.config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        var sets: [Set<String>] = []
        var reasons: [[String: String]] = []
        for day in month.days.indices {
            try month.deliver(day, into: feed)
            _ = try AuditPipeline.run(options)
            let rows = try PythonReader.run(Self.readFindings, args: [out + "/audit.sqlite"]) as! [[String]]
            let ids = rows.map { $0[0] }
            XCTAssertEqual(Set(ids).count, ids.count, "no two findings of a kind about one purchase in the sample")
            sets.append(Set(ids))
            reasons.append(Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0[1]) }))
        }
        let lifecycle = try PythonReader.run(Self.readLifecycle, args: [out + "/audit.sqlite"]) as! [String: Any]
        let runs = lifecycle["runs"] as! [[Int]]
        let history = (lifecycle["history"] as! [[Any]]).map { (run: $0[0] as! Int, event: $0[1] as! String, id: $0[2] as! String) }

        // What each run should have recorded, from the findings of consecutive runs alone.
        var seen = Set<String>()
        var expectedRuns: [[Int]] = []
        var reasonChanges = 0
        for (k, now) in sets.enumerated() {
            let before = k > 0 ? sets[k - 1] : []
            let events: [String: Set<String>] = [
                "new": now.subtracting(seen), "still_open": now.intersection(before),
                "resolved": before.subtracting(now), "reopened": now.intersection(seen).subtracting(before),
            ]
            // History keeps a still-open finding only when its reason changed.
            let changedReason = events["still_open"]!.filter { reasons[k][$0] != reasons[k - 1][$0] }
            reasonChanges += changedReason.count
            expectedRuns.append([
                k + 1, month.days[...k].map(\.files.count).reduce(0, +), now.count, events["new"]!.count,
                events["still_open"]!.count, events["resolved"]!.count, events["reopened"]!.count,
            ])
            for (event, ids) in events {
                // Gone is resolved, or expired (a pending finding outgrown by its problem, no new record of it).
                let recorded = Set(
                    history.filter { $0.run == k + 1 && ($0.event == event || event == "resolved" && $0.event == "expired") }.map(\.id))
                XCTAssertEqual(recorded, event == "still_open" ? changedReason : ids, "run \(k + 1), \(event)")
            }
            seen.formUnion(now)
        }
        XCTAssertEqual(runs, expectedRuns)
        XCTAssertEqual(
            history.count, expectedRuns.reduce(0) { $0 + $1[3] + $1[5] + $1[6] } + reasonChanges,
            "one row per change (new, resolved, reopened, a still-open finding's new reason), no more")
        XCTAssertEqual(reasonChanges, 0, "no finding of the month changes its reason from one night to the next (ReasonChangeTests)")

        // The month as it unfolds (the numbers checked above against the findings): 196 findings were new on some
        // night, 33 of them gone by a later one (resolved by an answer or a credit, or expired: a pending finding outgrown by
        // its problem, with no new record of it), none came back.
        XCTAssertEqual(runs.map { $0[3] }.reduce(0, +), seen.count, "every finding ever seen was new once")
        XCTAssertEqual([3, 5, 6].map { c in runs.map { $0[c] }.reduce(0, +) }, [196, 33, 0])
        // Each expired finding is a pending kind whose transaction has its problem that night.
        let expired = (lifecycle["expired"] as! [[Any]]).map { (run: $0[0] as! Int, id: $0[1] as! String) }
        // 30 of the 33: 20 verifications past the grace, 10 purchases whose server log or Apple's answers passed it.
        XCTAssertEqual(
            expired.map {
                "\($0.run) \($0.id.replacingOccurrences(of: "pending_verification:", with: "v:").replacingOccurrences(of: "pending_evidence:", with: "e:"))"
            },
            [
                "3 v:2000000400594096", "3 v:2000000400594097", "5 v:2000000400594347", "6 e:2000000400594115", "6 v:2000000400594095",
                "7 e:9223372036854775001", "8 e:2000000400594238", "8 v:2000000400594238", "8 v:2000000400594346",
                "14 v:2000000400594349", "15 e:2000000400594085", "16 v:2000000400594088", "17 v:2000000400594342",
                "18 e:2000000400594240", "18 v:2000000400594240", "18 v:2000000400594339", "19 v:2000000400594348",
                "20 v:2000000400594089", "20 v:2000000400594098", "20 v:2000000400594341", "21 e:2000000400594239",
                "21 v:2000000400594239", "22 e:2000000400594086", "22 v:2000000400594340", "23 e:2000000400594083",
                "23 e:2000000400594283", "23 v:2000000400594283", "24 e:2000000400594084", "26 v:2000000400594087",
                "27 v:2000000400594090",
            ])
        for e in expired {
            let t = e.id.split(separator: ":")[1]
            XCTAssertTrue(e.id.hasPrefix("pending_verification:") || e.id.hasPrefix("pending_evidence:"), e.id)
            XCTAssertTrue(sets[e.run - 1].contains { $0.hasSuffix(":" + t) && !$0.hasPrefix("pending_") }, e.id)
        }
        XCTAssertEqual(runs.last, [31, 153, 163, 3, 160, 2, 0], "the last night sees the whole month: the answer key's 163 findings")
        // The 31st brings one Apple answer (received 00:00:00, to a request of the 30th), which proves a credit,
        // and the month's notifications, one of which (sent 2026-10-20 09:00) settles a dropped order.
        XCTAssertEqual(
            lifecycle["last_resolved"] as? [[String]],
            [
                ["dropped_order:2000000400594860", "2026-10-20T09:00:00.000Z", "[\"\(feed)/2026-10-31/notifications.jsonl:3\"]"],
                // Granted on the 30th, answered by Apple at midnight: pending evidence on night 30 (rule 26), never a page.
                ["pending_evidence:2000000400599615", "2026-10-31T00:00:00.000Z", "[\"\(feed)/2026-10-31/verify.jsonl:1\"]"],
            ])

        // The last state of every finding: open if the last run had it, else resolved; first and last run seen.
        let states = (lifecycle["states"] as! [[Any]]).map { ($0[0] as! String, $0[1] as! String, $0[2] as! Int, $0[3] as! Int) }
        XCTAssertEqual(states.count, seen.count)
        for (id, status, first, last) in states {
            XCTAssertEqual(
                status, sets.last!.contains(id) ? "open" : history.last { $0.id == id }?.event == "expired" ? "expired" : "resolved", id)
            XCTAssertEqual(first, sets.firstIndex { $0.contains(id) }! + 1, id)
            XCTAssertEqual(last, sets.lastIndex { $0.contains(id) }! + 1, id)
        }

        // The last night's Changes sheet lists what changed (new, resolved, reopened, a new reason), not the findings
        // still open as they were: the finding sheets list those.
        let sheet = try PythonReader.run(Self.readChanges, args: [out + "/audit.xlsx"]) as! [String: Any]
        let listed = (sheet["rows"] as! [[String]]).map { "\($0[0]) \($0[1])" }
        let lastRun = history.filter { $0.run == 31 }.map { "\($0.event) \($0.id)" }
        XCTAssertEqual(Set(listed), Set(lastRun))
        XCTAssertEqual(listed.count, lastRun.count)
        let unchanged = runs.last![4] - history.filter { $0.run == 31 && $0.event == "still_open" }.count
        XCTAssertEqual(
            sheet["title"] as? String,
            "Run 31, against run 30: 3 new, 160 still_open, 2 resolved, 0 reopened (not listed here: \(unchanged) still open as before; "
                + "the finding sheets list them, status open or acknowledged)")

        // The finding sheets: every finding of the last night with its status and the night that first found it.
        XCTAssertEqual(
            sheet["first_seen"] as? [[AnyHashable]],
            states.filter { $0.1 != "resolved" && $0.1 != "expired" }.map { [$0.0, $0.1, $0.2] as [AnyHashable] }.sorted {
                "\($0)" < "\($1)"
            })

        // The same inputs again: no run, no history row, nothing changed.
        let again = try AuditPipeline.run(options)
        XCTAssertEqual(again.snapshot.changes?.repeated, true)
        XCTAssertEqual(again.snapshot.changes?.run, 31)
        // Shown again as run 31 recorded them: its still-open findings too, though history has rows of only some.
        let shown = try XCTUnwrap(again.snapshot.changes)
        XCTAssertEqual([LifecycleEvent.new, .stillOpen, .resolved, .reopened].map { shown.count($0) }, Array(runs.last![3...6]))
        XCTAssertEqual(Set(shown.ids(.stillOpen)), sets[30].intersection(sets[29]))
        let after = try PythonReader.run(Self.readLifecycle, args: [out + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual(after["dump"] as? [String], lifecycle["dump"] as? [String])
    }
}
