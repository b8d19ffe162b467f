import Foundation
import IAPAuditStore

/// The logs a run followed to a new name (`LedgerImporter.followingRotation`) and the last line the ledger held of each
/// then, by the new name (run parameter `followed_lines`, JSON, kept until a run records its findings, which replaces the
/// run parameters). A run that followed a log and then failed (a full disk, a kill) left the file imported past what the
/// last recorded run had: the next run counts as its own the rejected lines after that line only, not those the log's
/// lines held when they alerted (found by the night-by-night simulation: a bad line paged again after a failed night).
enum FollowedLogs {
    static let parameter = "followed_lines"

    /// The stored followed logs: last line held, by path.
    static func lastLines(_ store: AuditStore) throws -> [String: Int] {
        guard let text = try store.runParameter(parameter), let data = text.data(using: .utf8),
            let decoded = try? JSONDecoder().decode([String: Int].self, from: data)
        else { return [:] }
        return decoded
    }

    /// What a run after the one that followed `path` counts as its own: the lines after the last one held then, and the
    /// rejected lines among them (nil: `path` was not followed).
    static func readSince(_ path: String, _ followed: [String: Int], _ store: AuditStore) throws -> LedgerImporter.FileRead? {
        guard let last = followed[path], last > 0 else { return nil }
        let lines = try store.rejectedLines(path: path).compactMap { Int($0.prefix { $0 != "\t" }) }.filter { $0 > last }
        return LedgerImporter.FileRead(fromLine: last + 1, rejected: Int64(lines.count), newRejectedLines: Set(lines))
    }

    /// Adds `lastLines` to the stored ones (a new follow of a path replaces its entry).
    static func add(_ lastLines: [String: Int], _ store: AuditStore) throws {
        guard !lastLines.isEmpty else { return }
        let merged = try self.lastLines(store).merging(lastLines) { _, new in new }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try store.setRunParameter(parameter, String(decoding: try encoder.encode(merged), as: UTF8.self))
    }
}
