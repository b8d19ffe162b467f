import Foundation
import XCTest

@testable import IAPAuditModel

/// A month of inputs as a nightly export delivers it: each record's UTC day (client and server `ts`, Apple
/// `received_at`) picks the folder it lands in, `feed/2026-10-01/client.jsonl`…, so that run k is given the
/// first k days (the files of earlier days unchanged, as a log export leaves them).
struct NightlyFeed {
    /// File name → lines, by day (`2026-10-01`), days in order.
    let days: [(day: String, files: [String: [String]])]

    /// Cuts `folder`'s client.jsonl, client.csv (its header on every day's file), server.jsonl, verify.jsonl and signed.jsonl
    /// by day; notifications.jsonl and history.jsonl come with the last day.
    init(cutting folder: String) throws {
        var byDay: [String: [String: [String]]] = [:]
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl", "signed.jsonl", "client.csv"] {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            var lines = text.split(separator: "\n").map(String.init)
            let header = name.hasSuffix(".csv") ? lines.removeFirst() : nil
            for line in lines {
                let day = try Self.day(of: line, csv: header != nil)
                if byDay[day, default: [:]][name] == nil, let header { byDay[day, default: [:]][name] = [header] }
                byDay[day, default: [:]][name, default: []].append(line)
            }
        }
        // Notifications and the transaction history hold no day of delivery on their lines: they come whole
        // with the month's last day (a month-end export).
        let last = try XCTUnwrap(byDay.keys.max())
        for name in ["notifications.jsonl", "history.jsonl"] {
            byDay[last, default: [:]][name] = try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n").map(
                String.init)
        }
        days = byDay.keys.sorted().map { ($0, byDay[$0]!) }
    }

    struct Undated: Error { let line: String }

    /// The UTC day of a line: its `ts` or `received_at` (JSON Lines), its first field in epoch ms (CSV).
    static func day(of line: String, csv: Bool) throws -> String {
        if csv, let ms = Int64(line.prefix { $0 != "," }) { return Timestamp.day(ms) }
        for key in ["\"ts\":\"", "\"received_at\":\""] {
            if let range = line.range(of: key) { return String(line[range.upperBound...].prefix(10)) }
        }
        throw Undated(line: line)
    }

    /// Writes day `index`'s files into `feed/<day>/`.
    func deliver(_ index: Int, into feed: String) throws {
        let folder = feed + "/" + days[index].day
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, lines) in days[index].files { TestPaths.write(lines.joined(separator: "\n") + "\n", to: folder + "/" + name) }
    }
}
