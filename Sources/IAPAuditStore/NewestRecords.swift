import IAPAuditModel

/// The three feeds of transaction evidence, each exported by its own upstream job.
package enum RecordFeed: String, Sendable, CaseIterable {
    case clientReports = "client reports"
    case serverLog = "server log"
    case appleRecords = "Apple records"
}

/// The newest record of one feed in the ledger: its time (client or server `ts`; an Apple record's
/// `received_at`, else its signed date) and where it is.
package struct NewestRecord: Sendable, Equatable {
    package var feed: RecordFeed
    package var ms: Int64
    package var location: SourceLocation
}

extension AuditStore {
    /// The newest record of each feed the ledger holds a timed record of, in `RecordFeed` order (a feed
    /// with none is left out). Reads on a read-only connection of its own; each feed is one scan of its table.
    package static func newestRecords(path: String) throws -> [NewestRecord] {
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
            // The newest time; of records equally new, the first in ledger order (path, line).
            let q = try database.prepare(select + " WHERE ts_ms IS NOT NULL ORDER BY ts_ms DESC, f.path, line LIMIT 1")
            if try q.step() {
                newest.append(NewestRecord(feed: feed, ms: q.int64(0), location: SourceLocation(file: q.text(1), line: Int(q.int64(2)))))
            }
        }
        return newest
    }
}
