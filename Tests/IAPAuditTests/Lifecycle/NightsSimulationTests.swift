import Foundation
import XCTest

/// Ten nights of a generated month delivered night by night through the real logrotate, in each of its modes
/// (`bench/nights.py --nights 10 --transactions 800`: weekly rotation every 3 nights; maxsize before each half of a
/// night's delivery), with the planted faults of issue 30: a dropped order, a late credit, a cut line, a bad line
/// kept, a kill -9, a full disk, an ack, a stopped export. The docs' cron line runs each night at the night's clock.
/// Per mode: no page but the planted ones, every due page given, and the final ledger's findings and record counts
/// equal a single run's over the same data.
///
/// Some checks fail on today's code (issue 30 is open): they are listed in `knownFailures` and reported, one line
/// each, without failing the test; `IAP_AUDIT_NIGHTS_STRICT=1` makes them failures. A check that fails and is not
/// listed fails the test; a listed check that passes is reported, to be taken off the list.
final class NightsSimulationTests: XCTestCase {
    /// The logrotate modes the script simulates, in its order (bench/nights.py, MODES).
    static let modes = [
        "create-compress", "create-delaycompress", "copytruncate", "copytruncate-compress", "dateext", "olddir", "rotate-2",
        "maxsize",
    ]

    /// The checks of a mode: `pages` (a page no planted problem explains), `due` (a planted fault or the stopped
    /// export's first night gave no page), `findings` and `records` (the final ledger against the single run).
    static let knownFailures: [String: Set<String>] = [
        // compress without delaycompress, and olddir (the rotated file is in another folder, its name not the log's
        // extended): after a rotation the emptied log pages as a failed export (exit 3), and the bad line again.
        "create-compress": ["pages", "due"], "copytruncate-compress": ["pages", "due"], "olddir": ["pages", "due"],
        // The second rotation (a file moved onto a name the ledger holds: server.jsonl.1) pages the kept bad line again.
        "create-delaycompress": ["pages", "due"], "copytruncate": ["pages", "due"], "rotate-2": ["pages", "due"],
        // maxsize: the stopped client.jsonl, rotated, pages as emptied; and the bad line again.
        "maxsize": ["pages", "due"],
        // All modes: --fail-on-stale 36 at 06:30 says nothing the first night client.jsonl stops (30.5 hours old);
        // and a kill -9 landing after the run stored its new findings loses their page (the next run sees them open).
        "dateext": ["due"],
    ]

    func testTenNightsInEveryRotationModePageOnlyForWhatWasPlanted() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/logrotate") else {
            throw XCTSkip("needs /usr/sbin/logrotate (scripts/setup.sh --with-test-tools installs it)")
        }
        guard FileManager.default.isExecutableFile(atPath: BuiltBinary.path) else { throw BuiltBinary.Missing() }
        let scratch = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: scratch) }
        let json = scratch + "/nights.json"
        let (status, _, err) = try BuiltBinary.run(
            [
                TestPaths.repoRoot + "/bench/nights.py", "--binary", BuiltBinary.path, "--nights", "10",
                "--transactions", "800", "--json", json, "--work", scratch + "/work",
            ], executable: try PythonReader.pythonPath())
        XCTAssertEqual(status, 0, err)
        let data = try XCTUnwrap(FileManager.default.contents(atPath: json), err)
        let top = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let results = try XCTUnwrap(top["results"] as? [[String: Any]]), plan = try XCTUnwrap(top["plan"] as? [String: Any])
        let droppedId = try XCTUnwrap(top["dropped"] as? String, "a purchase to drop was found")
        XCTAssertEqual(results.compactMap { $0["mode"] as? String }, Self.modes)
        let strict = ProcessInfo.processInfo.environment["IAP_AUDIT_NIGHTS_STRICT"] == "1"
        for result in results { try judge(result, plan: plan, droppedId: droppedId, strict: strict) }
    }

    /// Checks one mode's result: its nights and planted faults as planned, then the four checks.
    func judge(_ result: [String: Any], plan: [String: Any], droppedId: String, strict: Bool) throws {
        let mode = try XCTUnwrap(result["mode"] as? String)
        let nights = try XCTUnwrap(result["nights"] as? [[String: Any]])
        guard nights.count == 10 else { return XCTFail("\(mode): \(nights.count) nights, not 10") }
        let exits = nights.map { $0["exit"] as? Int }
        let kill = try XCTUnwrap(plan["kill_night"] as? Int), disk = try XCTUnwrap(plan["disk_night"] as? Int)
        XCTAssertEqual(exits[kill - 1], -9, "\(mode): the kill -9 night")
        if result["disk_full"] as? String == "run" { XCTAssertEqual(exits[disk - 1], 1, "\(mode): the full disk's night") }
        // The planted dropped order pages the night its purchase comes, once.
        let dropped = try XCTUnwrap(plan["dropped_day"] as? Int)
        XCTAssertEqual((result["planted_pages"] as? [String: [Int]])?[droppedId], [dropped], "\(mode): the dropped order")
        let counts = try XCTUnwrap(result["single_run_counts"] as? [String: Int])
        XCTAssertGreaterThan(counts["server_request"] ?? 0, 100, "\(mode): the single run read the month's first 10 days")
        let falseNights = (result["false_page_nights"] as? [Int]) ?? []
        let missing = result["findings_missing"] as? [String] ?? [], extra = result["findings_extra"] as? [String] ?? []
        let checks: [(String, Bool, String)] = [
            ("pages", falseNights.isEmpty, "false pages on nights \(falseNights): \(firstFalse(nights))"),
            ("due", (result["missed"] as? [String] ?? []).isEmpty, "due pages not given: \(result["missed"] ?? "")"),
            ("findings", missing.isEmpty && extra.isEmpty, "findings ≠ the single run's: missing \(missing), extra \(extra)"),
            ("records", result["counts_equal"] as? Bool == true, "records \(result["counts"] ?? "") ≠ single run's \(counts)"),
        ]
        for (check, passed, message) in checks {
            let known = Self.knownFailures[mode]?.contains(check) == true
            if !passed && (!known || strict) {
                XCTFail("\(mode): \(message)")
            } else if !passed {
                print("NightsSimulationTests: known failure (issue 30; IAP_AUDIT_NIGHTS_STRICT=1 fails on it): \(mode): \(message)")
            } else if known {
                print("NightsSimulationTests: \(mode): \(check) now passes: take it off knownFailures")
            }
        }
    }

    /// The first false page's night and reasons, for the failure message.
    func firstFalse(_ nights: [[String: Any]]) -> String {
        guard let night = nights.first(where: { !(($0["false"] as? [String]) ?? []).isEmpty }) else { return "" }
        return "night \(night["number"] ?? ""): \((night["false"] as? [String] ?? []).joined(separator: "; "))"
    }
}
