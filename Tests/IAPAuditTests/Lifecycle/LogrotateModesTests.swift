import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// Ten nights of the sample month delivered day by day, the logs rotated by the real `logrotate` (`-f`, a state file
/// in the test's folder) in each of its modes, twice in the ten nights (twice or three times in one night for `maxsize`), always after
/// the day's first lines were written since the last run. Each mode's nights must page exactly as ten nights of the
/// same deliveries with no rotation at all: the same finding changes (ids and events), the one planted bad line alerted
/// on the night it arrived and never again, no file said emptied, and every night the ledger's records equal a single
/// run's over the days delivered (found by an on-call user test: `compress` without `delaycompress` paged a rotated log
/// as a failed export, and re-reading the `.gz` doubled the log and paged old bad lines again).
final class LogrotateModesTests: XCTestCase {
    static let logrotate = "/usr/sbin/logrotate"
    static let names = ["client.jsonl", "server.jsonl", "verify.jsonl"]
    /// The nights (0-based) the logs are rotated on.
    static let rotationNights: Set<Int> = [3, 7]
    /// The night the bad line arrives.
    static let badNight = 2
    /// The night a late credit arrives, before the rotation: it resolves the dropped order of 2000000400594092 (October 3).
    static let lateNight = 7

    /// A grant of 2000000400594092 to its buyer, logged early on `day` (the dropped order it resolves is rule 8's).
    static func lateCredit(_ day: String) -> String {
        "{\"ts\":\"\(day)T00:10:00Z\",\"request_id\":\"rlate0001\",\"user_id\":\"u260\",\"transaction_ids\":[\"2000000400594092\"],"
            + "\"restore\":false,\"verify_status\":0,\"environment\":\"Production\",\"granted\":true}"
    }

    /// logrotate's directives for each mode (besides `missingok`, `notifempty` off: an empty log is rotated too).
    static let modes: [(name: String, directives: String, rotations: Int)] = [
        ("create, compress", "create\ncompress\nrotate 4", 1),
        ("create, compress, delaycompress", "create\ncompress\ndelaycompress\nrotate 4", 1),
        ("copytruncate", "copytruncate\nrotate 4", 1),
        ("copytruncate, compress", "copytruncate\ncompress\nrotate 4", 1),
        ("dateext", "create\ncompress\ndateext\ndateformat -%Y%m%d-%s\nrotate 4", 1),
        ("olddir", "create\ncompress\nolddir old\ncreateolddir\nrotate 4", 1),
        ("rotate 1 deleting the oldest", "create\ncompress\nrotate 1", 1),
        ("maxsize, twice in one night", "create\ncompress\nrotate 8", 2),
        ("three times in one night, ifempty, rotate 4", "create\ncompress\nrotate 4", 3),
    ]

    /// One night's outcome: the finding changes (`event id`, sorted), the alert reasons about rejected lines, the
    /// warnings that would page as lost data, and the ledger's record counts.
    struct Night: Equatable {
        var changes: [String]
        /// Each finding resolved, and how: by how many new records, or by none (its detail up to the first colon).
        var resolvedBy: [String]
        var rejectedAlerts: Int
        var emptied: [String]
        var counts: String
    }

    func testEveryModeNightByNightAsWithoutRotation() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.logrotate), "logrotate is not installed")
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let plain = try nights(month, mode: nil)
        XCTAssertEqual(plain.map(\.rejectedAlerts), (0..<10).map { $0 == Self.badNight ? 1 : 0 }, "the bad line, once")
        XCTAssertFalse(plain.allSatisfy { $0.changes.isEmpty }, "the nights change findings: the comparison can fail")
        XCTAssertTrue(
            plain[Self.lateNight].resolvedBy.contains("dropped_order:2000000400594092 resolved by 1 new record(s)"),
            "the late credit: \(plain[Self.lateNight].resolvedBy)")
        for mode in Self.modes {
            let rotated = try nights(month, mode: mode)
            for (night, (got, want)) in zip(rotated, plain).enumerated() {
                let (extra, missing) = (Set(got.changes).subtracting(want.changes), Set(want.changes).subtracting(got.changes))
                XCTAssertEqual(
                    "\(extra.sorted()) \(missing.sorted())", "[] []", "\(mode.name), night \(night + 1): the same finding changes")
                XCTAssertEqual(got.resolvedBy, want.resolvedBy, "\(mode.name), night \(night + 1): resolved by the same new records")
                XCTAssertEqual(got.rejectedAlerts, want.rejectedAlerts, "\(mode.name), night \(night + 1): rejected lines")
                XCTAssertEqual(got.emptied, [], "\(mode.name), night \(night + 1)")
                XCTAssertEqual(got.counts, want.counts, "\(mode.name), night \(night + 1): every record once")
            }
        }
    }

    /// A run killed right after it followed a rotated log to its new name (`server.jsonl` grown into `server.jsonl.1`, or
    /// `.1.gz`), before it read the new part: the next run reads that part, and keeps nothing twice (found by the
    /// night-by-night simulation: the next run took the followed name for a rotated generation, kept its records under
    /// `server.jsonl.1@<sha8>` and read the file whole again, 7 Apple records twice; and, the log rotated again before that
    /// run, `.1` was not known as the log now at `.2.gz`).
    func testAKillAfterARotationWasFollowed() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.logrotate), "logrotate is not installed")
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let cases = [
            ("create\ncompress\nrotate 4", false), ("create\ncompress\ndelaycompress\nrotate 4", false),
            // Rotated again before the next run (maxsize): the log followed to `.1` is `.2.gz` now.
            ("create\ncompress\ndelaycompress\nrotate 4", true),
        ]
        for (directives, again) in cases {
            let root = TestPaths.scratch()
            addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
            let exports = root + "/exports", days = root + "/days"
            try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
            let files = Self.names.map { exports + "/" + $0 }.joined(separator: " ")
            TestPaths.write("\(files) {\n\(directives)\nmissingok\n}\n", to: root + "/logrotate.conf")
            for night in 0..<3 {
                for name in Self.names {
                    let lines = month.days[night].files[name] ?? []
                    try append(Array(lines[..<(lines.count / 2)]), exports + "/" + name)
                    try FileManager.default.createDirectory(atPath: days + "/\(night)", withIntermediateDirectories: true)
                    try append(lines, days + "/\(night)/" + name)
                }
                if night == 1 { try shell("\(Self.logrotate) -f -s '\(root)/logrotate.state' '\(root)/logrotate.conf'") }
                for name in Self.names {
                    let lines = month.days[night].files[name] ?? []
                    try append(Array(lines[(lines.count / 2)...]), exports + "/" + name)
                }
                try shell("find '\(exports)' -type f -exec touch -d '1 hour ago' {} +")
                let arguments = ["run", exports, "--out", root + "/ledger"]
                if night == 1 {
                    let killed = try BuiltBinary.run(arguments, environment: ["IAP_AUDIT_KILL_AT": "import_rotation"])
                    XCTAssertEqual(killed.status, -9, "\(directives): killed where the test says (\(killed.err))")
                    if again { try shell("\(Self.logrotate) -f -s '\(root)/logrotate.state' '\(root)/logrotate.conf'") }
                }
                let (status, _, err) = try BuiltBinary.run(arguments)
                XCTAssertEqual(status, 0, err)
                XCTAssertFalse(err.contains("holds no record now"), "\(directives), night \(night + 1): \(err)")
            }
            _ = try AuditPipeline.run(AuditOptions(paths: [days], outputDirectory: root + "/fresh"))
            XCTAssertEqual(try counts(root + "/ledger"), try counts(root + "/fresh"), "\(directives), \(again): every record once")
        }
    }

    /// Found by a hostile-input test: a rotated archive delivered damaged (junk after the gzip stream) and then again whole,
    /// as its alert says, replaces what was read of it (its records were kept and read again: twice); and a log missing
    /// for a night, its rotated archive come the night after, is followed there (it was read whole again: twice).
    func testADamagedArchiveDeliveredAgainAndALogMissingANight() throws {
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let day = { (n: Int) in month.days[n].files["server.jsonl"] ?? [] }
        for scenario in ["damaged archive delivered again", "log missing a night"] {
            let root = TestPaths.scratch()
            addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
            let exports = root + "/exports", fresh = root + "/fresh"
            try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
            let run = { _ = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger")) }
            try append(day(0) + day(1), root + "/old")
            if scenario == "damaged archive delivered again" {
                try append(day(2), exports + "/server.jsonl")
                try shell(
                    "gzip -c '\(root)/old' > '\(exports)/server.jsonl.1.gz' && printf 'junk after the stream' >> '\(exports)/server.jsonl.1.gz'"
                )
                try run()
                try shell("gzip -c '\(root)/old' > '\(exports)/server.jsonl.1.gz'")
                try run()
            } else {
                try append(day(0), exports + "/server.jsonl")
                try run()
                try shell("rm '\(exports)/server.jsonl'")
                try append(day(2), exports + "/other.jsonl")
                try run()
                try shell("gzip -c '\(root)/old' > '\(exports)/server.jsonl.1.gz'")
                try run()
            }
            try append(day(0) + day(1) + day(2), fresh + "/server.jsonl")
            _ = try AuditPipeline.run(AuditOptions(paths: [fresh], outputDirectory: root + "/single"))
            XCTAssertEqual(try counts(root + "/ledger"), try counts(root + "/single"), "\(scenario): every record once")
        }
    }

    /// Ten nights of deliveries, rotated in `mode` (nil: never), each night's run judged.
    func nights(_ month: NightlyFeed, mode: (name: String, directives: String, rotations: Int)?) throws -> [Night] {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let exports = root + "/exports", days = root + "/days"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        if let mode {
            let files = Self.names.map { exports + "/" + $0 }.joined(separator: " ")
            TestPaths.write("\(files) {\n\(mode.directives)\nmissingok\nifempty\n}\n", to: root + "/logrotate.conf")
        }
        func rotate() throws {
            try shell("\(Self.logrotate) -f -s '\(root)/logrotate.state' '\(root)/logrotate.conf'")
            // dateext names a rotation by the second: two in one night need two seconds.
            if mode?.directives.contains("dateext") == true { sleep(1) }
        }
        var result: [Night] = []
        for night in 0..<10 {
            var parts: [String: [[String]]] = [:]
            for name in Self.names {
                var lines = month.days[night].files[name] ?? []
                if night == Self.badNight && name == "server.jsonl" { lines.insert("{\"ts\": \"2026-10-0", at: lines.count / 2) }
                if night == Self.lateNight && name == "server.jsonl" { lines.insert(Self.lateCredit(month.days[night].day), at: 0) }
                let (a, b) = (lines.count / 3, 2 * lines.count / 3)
                parts[name] = [Array(lines[..<a]), Array(lines[a..<b]), Array(lines[b...])]
                try FileManager.default.createDirectory(atPath: days + "/\(night)", withIntermediateDirectories: true)
                try append(lines, days + "/\(night)/" + name)
            }
            // The day's first lines, a rotation, more lines (a second rotation: `maxsize`), the rest (a third: the run finds
            // the log empty, and each older file moved three names on, the oldest deleted).
            for part in 0..<3 {
                for name in Self.names { try append(parts[name]![part], exports + "/" + name) }
                if let mode, Self.rotationNights.contains(night), part < mode.rotations { try rotate() }
            }
            try shell("find '\(exports)' -type f -exec touch -d '1 hour ago' {} +")
            let run = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
            let verdict = try RunAlerts.verdict(run, rules: AlertRules(failOnRejected: true), nowMs: 0)
            if let mode, Self.rotationNights.contains(night) {  // the rotation was seen (and the test rotated)
                XCTAssertEqual(run.warnings.filter { $0.code == .inputRotated }.count, 1, "\(mode.name), night \(night + 1)")
            }
            let changes = try XCTUnwrap(run.snapshot.changes).changes.map { "\($0.event) \($0.state.id)" }.sorted()
            let counts = try self.counts(root + "/ledger")
            if mode == nil {  // a single run over the days delivered (the same days in every mode)
                _ = try AuditPipeline.run(AuditOptions(paths: [days], outputDirectory: root + "/fresh\(night)"))
                XCTAssertEqual(counts, try self.counts(root + "/fresh\(night)"), "no rotation, night \(night + 1)")
            }
            let resolved = try XCTUnwrap(run.snapshot.changes).changes.filter { $0.event == .resolved }
            result.append(
                Night(
                    changes: changes, resolvedBy: resolved.map { "\($0.state.id) \($0.detail.prefix { $0 != ":" })" }.sorted(),
                    rejectedAlerts: verdict.reasons.filter { $0.contains("rejected") }.count,
                    emptied: run.warnings.filter { $0.code == .inputEmptied }.map(\.message), counts: counts))
        }
        return result
    }

    /// The ledger's records, by table, and its rejected lines.
    func counts(_ out: String) throws -> String {
        let rows = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            print(json.dumps([db.execute("SELECT count(*) FROM " + t).fetchone()[0]
                              for t in ("client_report", "server_request", "apple_record", "rejection")]))
            """, args: [out])
        return "\(rows)"
    }
}
