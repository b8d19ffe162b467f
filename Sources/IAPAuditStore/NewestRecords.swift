import IAPAuditModel

/// The three feeds of transaction evidence, each exported by its own upstream job.
package enum RecordFeed: String, Sendable, CaseIterable {
    case clientReports = "client reports"
    case serverLog = "server log"
    case appleRecords = "Apple records"

    /// Its name in the run parameter `feeds_seen`.
    package var code: String { String(describing: self) }

    /// `feeds_seen`: the feeds the ledger has held a timed record of, at any run (comma-separated codes).
    package static func seen(_ text: String?) -> Set<RecordFeed> {
        Set((text ?? "").split(separator: ",").compactMap { code in allCases.first { $0.code == code } })
    }

    package static func seenText(_ feeds: Set<RecordFeed>) -> String { allCases.filter(feeds.contains).map(\.code).joined(separator: ",") }
}

/// The newest record of one feed in the ledger not dated after an instant: its time (client or server `ts`; an
/// Apple record's `received_at`, else its signed date) and where it is; and the records dated after that instant.
package struct NewestRecord: Sendable, Equatable {
    package var feed: RecordFeed
    /// The newest record at or before the instant; nil when every timed record of the feed is dated after it.
    package var newest: (ms: Int64, location: SourceLocation)?
    /// Records of the feed dated after the instant (a clock-skewed client or server): left out, and the first of them.
    package var later = 0
    package var firstLater: (ms: Int64, location: SourceLocation)? = nil

    package init(feed: RecordFeed, newest: (ms: Int64, location: SourceLocation)? = nil) { (self.feed, self.newest) = (feed, newest) }

    package static func == (a: Self, b: Self) -> Bool {
        (a.feed, a.newest?.ms, a.newest?.location, a.later, a.firstLater?.ms, a.firstLater?.location)
            == (b.feed, b.newest?.ms, b.newest?.location, b.later, b.firstLater?.ms, b.firstLater?.location)
    }
}

extension AuditStore {
    /// The newest record at or before `notAfterMs` (UTC ms) of each feed the ledger holds a timed record of, in
    /// `RecordFeed` order (a feed with none is left out), with the count of its records dated after that instant. Reads on a
    /// read-only connection of its own; each feed is one or two scans of its table.
    package static func newestRecords(path: String, notAfterMs: Int64) throws -> [NewestRecord] {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let queries: [(RecordFeed, String)] = [
            (.clientReports, "SELECT c.ts_ms, f.path, c.line FROM client_report c JOIN source_file f USING (file_id)"),
            (.serverLog, "SELECT s.ts_ms, f.path, s.line FROM server_request s JOIN source_file f USING (file_id)"),
            (
                .appleRecords,
                "SELECT coalesce(r.received_at_ms, r.signed_date_ms) AS ts_ms, f.path, r.line FROM apple_record r JOIN source_file f USING (file_id)"
            ),
        ]
        var newest: [NewestRecord] = []
        for (feed, select) in queries {
            // The newest time; of records equally new, the first in ledger order (path, line). One scan when it is not
            // after the instant (the usual case); else two more: the newest before it, and those after it.
            let order = " ORDER BY ts_ms DESC, f.path, line LIMIT 1"
            let q = try database.prepare(select + " WHERE ts_ms IS NOT NULL" + order)
            guard try q.step() else { continue }
            var record = NewestRecord(feed: feed, newest: (q.int64(0), SourceLocation(file: q.text(1), line: Int(q.int64(2)))))
            if record.newest!.ms <= notAfterMs {
                newest.append(record)
                continue
            }
            record.newest = nil
            let before = try database.prepare(select + " WHERE ts_ms IS NOT NULL AND ts_ms <= ?1" + order)
            before.bind([notAfterMs])
            if try before.step() { record.newest = (before.int64(0), SourceLocation(file: before.text(1), line: Int(before.int64(2)))) }
            let later = try database.prepare(
                "SELECT count(*) OVER (), ts_ms, path, line FROM (\(select) WHERE ts_ms > ?1) ORDER BY ts_ms, path, line LIMIT 1")
            later.bind([notAfterMs])
            if try later.step() {
                record.later = Int(later.int64(0))
                record.firstLater = (later.int64(1), SourceLocation(file: later.text(2), line: Int(later.int64(3))))
            }
            newest.append(record)
        }
        return newest
    }
}
