import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// Logs rotated under numbered names, as logrotate does by default (`rotate 2`, `compress`, `delaycompress`,
/// `copytruncate`): each night `server.jsonl.1` is gzipped into `server.jsonl.2.gz` (the old one deleted),
/// `server.jsonl` copied to `server.jsonl.1` and emptied, then the day written to it. The ledger keeps every day
/// (found by an on-call user test: from the fourth night each night lost the oldest day's records, and a real dropped
/// order was resolved by the loss), and its findings are a from-scratch run's over every day.
final class NumberedRotationTests: XCTestCase {
    static let names = ["client.jsonl", "server.jsonl", "verify.jsonl"]

    func rows(_ out: String) throws -> [String: Any] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            print(json.dumps({
                "findings": [list(r) for r in db.execute("SELECT finding_id, reason, user_ids FROM finding ORDER BY finding_id")],
                "counts": [db.execute("SELECT count(*) FROM " + t).fetchone()[0]
                           for t in ("client_report", "server_request", "apple_record", "rejection")]}))
            """, args: [out]) as! [String: Any]
    }

    /// A copy of a file the ledger holds (`cp verify.jsonl verify.jsonl.bak`, a gzipped copy) is a copy, not a rotation:
    /// the original, untouched, stays the file given, and once it grows its new lines are read once (found by an on-call
    /// user test: its records moved to `verify.jsonl@<sha8>`, out of the files given, and the grown log was stored twice).
    func testACopyOfAHeldFileIsNoRotation() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let exports = root + "/exports", truth = root + "/truth"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        func deliver(_ day: Int) throws {
            for name in ["server.jsonl", "verify.jsonl"] {
                try append(month.days[day].files[name] ?? [], exports + "/" + name)
            }
            // Older than the ledger's stat trust window (2 s): as a night's files are.
            try shell("touch -d '1 hour ago' '\(exports)'/server.jsonl '\(exports)'/verify.jsonl")
        }
        try deliver(0)
        _ = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
        try shell("cd '\(exports)' && cp verify.jsonl verify.jsonl.bak && gzip -c server.jsonl > server.jsonl.gz")
        let copied = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
        XCTAssertEqual(copied.warnings.filter { $0.code == .inputRotated }.map(\.message), [])
        let files = Dictionary(uniqueKeysWithValues: copied.snapshot.files.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0) })
        XCTAssertEqual(files.keys.sorted(), ["server.jsonl", "server.jsonl.gz", "verify.jsonl", "verify.jsonl.bak"])
        XCTAssertEqual(files["verify.jsonl"]?.status, "imported")
        XCTAssertEqual(files["verify.jsonl.bak"]?.note, "same content as \(exports)/verify.jsonl (not counted twice)")
        XCTAssertEqual(files["server.jsonl.gz"]?.status, "skipped")
        // The next day appended to the originals: read once, as a run over the originals alone reads them.
        try deliver(1)
        _ = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
        try FileManager.default.createDirectory(atPath: truth, withIntermediateDirectories: true)
        try shell("cp '\(exports)'/server.jsonl '\(exports)'/verify.jsonl '\(truth)'/")
        _ = try AuditPipeline.run(AuditOptions(paths: [truth], outputDirectory: root + "/fresh"))
        let (kept, fresh) = (try rows(root + "/ledger"), try rows(root + "/fresh"))
        XCTAssertEqual(kept["counts"] as? [Int], fresh["counts"] as? [Int])
        XCTAssertEqual((kept["findings"] as? [[Any]])?.count, (fresh["findings"] as? [[Any]])?.count)
    }

    func testNumberedRotationLosesNoDayAndReadsNothingTwice() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let exports = root + "/exports", days = root + "/days"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        var rotated = 0
        for night in 0..<7 {
            for name in Self.names {
                let f = "'\(exports)/\(name)'"
                try shell(
                    "rm -f \(f).2.gz; if [ -f \(f).1 ]; then gzip -c \(f).1 > \(f).2.gz; rm \(f).1; fi; "
                        + "if [ -f \(f) ]; then cp \(f) \(f).1; : > \(f); fi")
                let lines = month.days[night].files[name] ?? []
                TestPaths.write(lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n", to: exports + "/" + name)
                try month.deliverOnly(night, name, into: days)
            }
            let ledger = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
            rotated += ledger.warnings.filter { $0.code == .inputRotated }.count
            // The kept contents' environment caveats in one line a code, not one a kept file (a mail a line longer a night).
            let environment = ledger.warnings.filter { $0.code == .environmentConflict || $0.code == .environmentUnknown }
            XCTAssertLessThanOrEqual(environment.filter { $0.file?.contains("@") == true }.count, 2, "night \(night + 1)")
            XCTAssertTrue(
                environment.filter { $0.file?.contains("@") == true }.allSatisfy {
                    $0.message.contains(" kept from earlier runs (no longer given) hold ")
                },
                "\(environment.map(\.message))")
            _ = try AuditPipeline.run(AuditOptions(paths: [days], outputDirectory: root + "/fresh\(night)"))
            let (kept, fresh) = (try rows(root + "/ledger"), try rows(root + "/fresh\(night)"))
            XCTAssertEqual("\(kept["counts"]!)", "\(fresh["counts"]!)", "night \(night + 1): every day's records, once")
            XCTAssertEqual("\(kept["findings"]!)", "\(fresh["findings"]!)", "night \(night + 1): the findings of every day")
        }
        XCTAssertEqual(rotated, 6, "said every night from the second")
    }
}

extension NumberedRotationTests {
    /// `rotate 1` with `copytruncate`, the log read while it is written: each run sees half a day; at midnight the log,
    /// grown by the rest of the day since, is copied whole to `.1` (the last `.1` overwritten). The content the ledger
    /// read followed its bytes to `.1` (read from its old end), and nothing was lost when `.1` was overwritten (found by a
    /// rotation user test: every day went once the next day's `.1` replaced it).
    func testRotateOneOfALogReadWhileWritten() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let month = try NightlyFeed(cutting: TestPaths.repoRoot + "/sample-data")
        let exports = root + "/exports", parts = root + "/parts"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        func half(_ day: Int, _ name: String, second: Bool) -> [String] {
            let lines = month.days[day].files[name] ?? []
            return second ? Array(lines[(lines.count / 2)...]) : Array(lines[..<(lines.count / 2)])
        }
        for night in 0..<6 {
            for name in Self.names {
                let f = "'\(exports)/\(name)'"
                if night > 0 {
                    try append(half(night - 1, name, second: true), exports + "/" + name)
                    try append(half(night - 1, name, second: true), parts + "/\(night - 1)b/" + name)
                    try shell("cp \(f) \(f).1; : > \(f)")
                }
                try append(half(night, name, second: false), exports + "/" + name)
                try FileManager.default.createDirectory(atPath: parts + "/\(night)a", withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: parts + "/\(night)b", withIntermediateDirectories: true)
                try append(half(night, name, second: false), parts + "/\(night)a/" + name)
            }
            _ = try AuditPipeline.run(AuditOptions(paths: [exports], outputDirectory: root + "/ledger"))
            _ = try AuditPipeline.run(AuditOptions(paths: [parts], outputDirectory: root + "/fresh\(night)"))
            let (kept, fresh) = (try rows(root + "/ledger"), try rows(root + "/fresh\(night)"))
            XCTAssertEqual("\(kept["counts"]!)", "\(fresh["counts"]!)", "night \(night + 1): every half day's records, once")
            XCTAssertEqual("\(kept["findings"]!)", "\(fresh["findings"]!)", "night \(night + 1)")
        }
    }
}

extension NightlyFeed {
    /// Writes day `index`'s file `name` (if it has one) into `feed/<day>/`.
    func deliverOnly(_ index: Int, _ name: String, into feed: String) throws {
        guard let lines = days[index].files[name] else { return }
        let folder = feed + "/" + days[index].day
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        TestPaths.write(lines.joined(separator: "\n") + "\n", to: folder + "/" + name)
    }
}
