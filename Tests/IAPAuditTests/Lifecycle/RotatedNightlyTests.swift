import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// The sample month fed night by night with the old days' files deleted once imported (logrotate): after
/// every night the findings equal a from-scratch run's over every day so far (the nights after the first
/// computing only the requests their new facts name), and the lifecycle equals the one
/// a ledger given every file records; a run killed (SIGKILL) anywhere, on any night, is completed by the next
/// one into the same ledger content and lifecycle (tables compared by their natural keys, not file ids).
final class RotatedNightlyTests: XCTestCase {
    /// Findings and lifecycle with the feed's folder written `FEED` (the ledgers read the same days from
    /// different folders) and without the machine's times.
    static let readOutcome = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        def rows(sql): return [[v.replace(sys.argv[2], "FEED") if isinstance(v, str) else v for v in r] for r in db.execute(sql)]
        print(json.dumps({
            "findings": rows("SELECT * FROM finding ORDER BY finding_id"),
            "runs": rows("SELECT run, files, findings, new, still_open, resolved, reopened, as_of FROM audit_run ORDER BY run"),
            "history": rows("SELECT run, finding_id, event, detail FROM finding_history ORDER BY run, finding_id, event"),
            "states": rows("SELECT finding_id, status, first_seen_run, last_seen_run, resolved_run, resolved_at, resolved_evidence "
                           "FROM finding_state ORDER BY finding_id")}))
        """

    /// Every table of a ledger, each row with its file ids as paths and record ids as (path, line), without the
    /// machine's times and the stat of the files, sorted: what two ledgers of the same history must hold alike.
    static let readContent = """
        import hashlib, json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        paths = dict(db.execute("SELECT file_id, path FROM source_file"))
        skip = {"file_id", "chunk_id", "mtime_ns", "inode", "recorded_at", "recorded_at_ms", "time", "time_ms"}
        out = {}
        for (t,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"):
            if t == "run_warning": continue  # a killed run's successor says so
            cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]
            rows = []
            for r in db.execute(f'SELECT * FROM "{t}"'):
                d = dict(zip(cols, r))
                if "record_id" in d: d["record_id"] = [paths.get(d["record_id"] >> 32), d["record_id"] & 0xFFFFFFFF]
                if "file_id" in d: d["file"] = paths.get(d["file_id"])
                for c in skip: d.pop(c, None)
                rows.append(json.dumps({k: v.hex() if isinstance(v, bytes) else v for k, v in d.items()}, sort_keys=True))
            out[t] = [len(rows), hashlib.sha256("\\n".join(sorted(rows)).encode()).hexdigest()]
        print(json.dumps(out))
        """

    func outcome(_ out: String, feed: String) throws -> [String: Any] {
        try PythonReader.run(Self.readOutcome, args: [out + "/audit.sqlite", feed]) as! [String: Any]
    }

    /// Deletes the folders of the days before `keep` days ago: what a rotation leaves.
    func rotate(_ feed: String, _ month: NightlyFeed, night: Int, keep: Int = 3) {
        for old in 0..<max(0, night - keep + 1) { try? FileManager.default.removeItem(atPath: feed + "/" + month.days[old].day) }
    }

    func testARotatedFeedFindsWhatAFromScratchRunFindsEveryNight() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        func options(_ input: String, _ out: String) -> AuditOptions {
            var options = AuditOptions(paths: [input], outputDirectory: out)
            options.config = config
            return options
        }
        let (feed, all) = (root + "/feed", root + "/all")
        var carried: [String] = []
        for night in month.days.indices {
            try month.deliver(night, into: feed)
            try month.deliver(night, into: all)
            setenv("IAP_AUDIT_PHASE_TIMINGS", root + "/phases.json", 1)
            let rotated = try AuditPipeline.run(options(feed, root + "/rotated"))
            unsetenv("IAP_AUDIT_PHASE_TIMINGS")
            let phases = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/phases.json")))
            carried.append(((phases as? [String: Any])?["reconcile_carry"] as? String ?? "none").components(separatedBy: ":")[0])
            XCTAssertEqual(
                rotated.warnings.filter { $0.code == .inputVanished }.count, night >= 4 ? month.days[night - 4].files.count : 0,
                "night \(night + 1): the day rotated away is named, once")
            _ = try AuditPipeline.run(options(all, root + "/growing"))
            let scratch = root + "/scratch\(night)"
            _ = try AuditPipeline.run(options(all, scratch))
            let (r, g, s) = (
                try outcome(root + "/rotated", feed: feed), try outcome(root + "/growing", feed: all), try outcome(scratch, feed: all)
            )
            try? FileManager.default.removeItem(atPath: scratch)
            XCTAssertEqual(
                "\(r["findings"]!)", "\(s["findings"]!)", "night \(night + 1): the rotated ledger's findings are a from-scratch run's")
            for key in ["runs", "history", "states"] {
                XCTAssertEqual("\(r[key]!)", "\(g[key]!)", "night \(night + 1): \(key) as if every file were still given")
            }
            rotate(feed, month, night: night)
        }
        // Every night after the first carried the requests it had no new fact of (RequestCarry).
        XCTAssertEqual(carried, ["full (no carry from an earlier run)"] + Array(repeating: "incremental", count: 30))
        let last = try outcome(root + "/rotated", feed: feed)
        XCTAssertEqual((last["runs"] as! [[Any]]).last?.prefix(7).map { $0 as! Int }, [31, 153, 163, 3, 160, 2, 0])
        // The dropped order a notification settles, the credit an answer of the 31st proves: resolved at the right time.
        let resolved = (last["states"] as! [[Any]]).filter { $0[4] as? Int == 31 }.map { [$0[0] as! String, $0[5] as! String] }
        XCTAssertEqual(
            resolved,
            [
                ["dropped_order:2000000400594860", "2026-10-20T09:00:00.000Z"],
                // Granted on the 30th, answered at midnight: pending evidence on night 30 (rule 26).
                ["pending_evidence:2000000400599615", "2026-10-31T00:00:00.000Z"],
            ])
    }

    /// 20 kills at random points of the nightly runs (a rotated feed, so kept files too), each run completed by the
    /// next one: the ledger's content and lifecycle equal those of a ledger never killed, every night.
    func testRunsKilledAnywhereAcrossTheNightsLeaveTheLedgerOfRunsNeverKilled() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let config = TestPaths.repoRoot + "/sample-data/config.json"
        let feed = root + "/feed"
        let run = { (out: String) in ["run", feed, "--out", out, "--config", config] }
        var random = SplitMix(seed: 13)
        var kills = 0
        var recordedWhole = 0
        for night in month.days.indices {
            try month.deliver(night, into: feed)
            let started = Date()
            XCTAssertEqual(try BuiltBinary.run(run(root + "/clean")).status, 0)
            let duration = Date().timeIntervalSince(started)
            // Two kills a night on the nights 1, 4, 7… (and the last): 20 in all.
            if night % 3 == 0 || night == month.days.count - 1, kills < 20 {
                for _ in 0..<2 where kills < 20 {
                    if try BuiltBinary.kill(run(root + "/killed"), after: duration * random.fraction()) { recordedWhole += 1 }
                    kills += 1
                }
            }
            XCTAssertEqual(try BuiltBinary.run(run(root + "/killed")).status, 0, "night \(night + 1): the next run completes it")
            let clean = try PythonReader.run(Self.readContent, args: [root + "/clean/audit.sqlite"]) as! [String: Any]
            let killed = try PythonReader.run(Self.readContent, args: [root + "/killed/audit.sqlite"]) as! [String: Any]
            XCTAssertEqual(clean.keys.sorted(), killed.keys.sorted())
            for (table, value) in clean { XCTAssertEqual("\(killed[table]!)", "\(value)", "night \(night + 1): table \(table)") }
            rotate(feed, month, night: night)
        }
        XCTAssertEqual(kills, 20)
        XCTAssertLessThan(recordedWhole, 20, "most kills land inside a run")
    }
}

extension SplitMix {
    /// A number in [0, 1).
    mutating func fraction() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
