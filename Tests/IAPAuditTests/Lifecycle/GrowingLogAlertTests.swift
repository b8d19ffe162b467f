import Foundation
import XCTest

@testable import IAPAuditModel

/// A log delivered by appending to the same file every night (read from its old end): what alerts is what the night
/// added (found by an on-call retest: one old rejected line paged every night, forever, and a field renamed in the
/// appended lines never alerted).
final class GrowingLogAlertTests: XCTestCase {
    typealias Day = NextDayCreditTests

    func append(_ lines: [String], to path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data())
        }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
        try handle.close()
    }

    func purchases(_ range: Range<Int>, day: Int) -> [String] {
        range.map { Day.purchase("2026-10-0\(day)T10:\(String(format: "%02d", $0 % 60)):00Z", "u\($0)", "\(2_000_000_000_000_000 + $0)") }
    }

    func testANightAlertsOnTheLinesItAddedOnly() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out", log = feed + "/client.jsonl"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let run = { try BuiltBinary.run(["run", feed, "--out", out, "--fail-on-rejected"]) }

        // Night 1: a line cut mid-record among good ones: it alerts.
        try append(
            purchases(0..<30, day: 1) + [#"{"ts":"2026-10-01T11:00:00Z","user_id":"u1","state":"purchased","transaction_id":"#], to: log)
        let first = try run()
        XCTAssertEqual(first.status, 3, first.err)
        XCTAssertTrue(first.err.contains("iap-audit: alert: 1 line(s) rejected in 1 file(s) this run brought: \(log) (1)."), first.err)

        // Night 2: good lines appended, read from the old end: the old rejection does not page again.
        try append(purchases(30..<60, day: 2), to: log)
        let second = try run()
        XCTAssertEqual(second.status, 0, second.err)
        XCTAssertTrue(second.out.contains("Records: 61 in = 60 imported + 1 rejected"), second.out)

        // Night 3: the export renamed user_id in the lines it appended, and cut one more: both alert, for this night's lines.
        try append(
            purchases(60..<85, day: 3).map { $0.replacingOccurrences(of: "\"user_id\":", with: "\"userId\":") } + ["{not json"], to: log)
        let third = try run()
        XCTAssertEqual(third.status, 3, third.err)
        XCTAssertTrue(third.err.contains("iap-audit: alert: 1 line(s) rejected in 1 file(s) this run brought: \(log) (1)."), third.err)
        XCTAssertTrue(
            third.err.contains(
                "iap-audit: alert: \(log): none of the 25 client reports it gained (from line 62) has a user_id (an export that renamed "
                    + "or dropped the field?)"), third.err)

        // Night 4: the writer is mid-line at the run (no line feed yet): that line alerts.
        let last = Day.purchase("2026-10-04T10:00:00Z", "u90", "2000000000000090")
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(last.prefix(40).utf8))
        try handle.close()
        let fourth = try run()
        XCTAssertEqual(fourth.status, 3, fourth.err)
        XCTAssertTrue(fourth.err.contains("iap-audit: alert: 1 line(s) rejected in 1 file(s) this run brought: \(log) (1)."), fourth.err)
        // Night 5: the line completed, good lines after it: read whole again (its old last line had no line feed), and
        // its old rejected lines (nights 1 and 3) are not this night's: nothing alerts (found by an on-call retest).
        try append([String(last.dropFirst(40))] + purchases(90..<95, day: 5), to: log)
        let fifth = try run()
        XCTAssertEqual(fifth.status, 0, fifth.err)
        XCTAssertTrue(fifth.out.contains("Records: 93 in = 91 imported + 2 rejected"), fifth.out)
    }

    /// A gzipped copy of a log, skipped as its copy, stays a copy once the log grows (it was read as a file of new
    /// records: its lines twice, its rejected line paged again; found by an on-call user test).
    func testACopyOfALogStaysACopyWhenTheLogGrows() throws {
        let root = TestPaths.scratch(), feed = root + "/feed", out = root + "/out", log = feed + "/client.jsonl"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let run = { try BuiltBinary.run(["run", feed, "--out", out, "--fail-on-rejected", "--json"]) }
        try append(purchases(0..<30, day: 1) + ["{not json"], to: log)
        XCTAssertEqual(try run().status, 3)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(log)' > '\(log).1.gz'"]
        try gzip.run()
        gzip.waitUntilExit()
        let copied = try run()
        XCTAssertEqual(copied.status, 0, copied.err)
        try append(purchases(30..<40, day: 2), to: log)
        let grown = try run()
        XCTAssertEqual(grown.status, 0, grown.err)
        let summary = try JSONSerialization.jsonObject(with: Data(grown.out.utf8)) as! [String: Any]
        let files = (summary["files"] as! [[String: Any]]).map { "\($0["path"]!) \($0["status"]!) \($0["note"] ?? "")" }
        XCTAssertEqual(files, ["\(log) imported client reports", "\(log).1.gz skipped same content as \(log) (not counted twice)"])
        XCTAssertEqual((summary["records"] as! [String: Any])["imported"] as? Int, 40, "the log's 40 good lines, once")
        // A run on the same files, then a second night of growth: still a copy (it was imported as new records then).
        for night in [nil, 3] {
            if let night { try append(purchases(40..<50, day: night), to: log) }
            let later = try run()
            XCTAssertEqual(later.status, 0, later.err)
            let json = try JSONSerialization.jsonObject(with: Data(later.out.utf8)) as! [String: Any]
            XCTAssertEqual(
                (json["files"] as! [[String: Any]]).first { ($0["path"] as! String).hasSuffix(".gz") }?["status"] as? String, "skipped")
            XCTAssertEqual((json["records"] as! [String: Any])["imported"] as? Int, night == nil ? 40 : 50)
        }
    }
}
