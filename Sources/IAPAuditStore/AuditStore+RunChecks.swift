import Foundation
import IAPAuditModel

/// What a run's checks read of the ledger after reconciling (`RunChecks`, `RunAlerts`): the files with rejected
/// records, the failed signatures no listing counts, the kinds of Apple record held.
extension AuditStore {
    /// Files of the ledger with records rejected, and the first rejection of each: (path, records in,
    /// rejected, first rejected line, its reason). Read on a connection of its own: a run asks while this
    /// store's connection builds the indexes on another thread (a connection is never shared by two).
    package func rejectedShares() throws -> [(path: String, kind: String, recordsIn: Int64, rejected: Int64, line: Int64, reason: String)] {
        let q = try SQLiteDatabase(path: database.path, readOnly: true).prepare(
            """
            SELECT f.path, f.kind, f.records_in, f.records_rejected,
                   (SELECT r.line FROM rejection r WHERE r.file_id = f.file_id ORDER BY r.line LIMIT 1),
                   (SELECT r.reason FROM rejection r WHERE r.file_id = f.file_id ORDER BY r.line LIMIT 1)
            FROM source_file f WHERE f.records_rejected > 0 ORDER BY f.path
            """)
        var result: [(String, String, Int64, Int64, Int64, String)] = []
        while try q.step() {
            result.append((q.text(0), q.text(1), q.int64(2), q.int64(3), q.optionalInt64(4) ?? 0, q.optionalText(5) ?? ""))
        }
        return result
    }

    /// Per file, the Apple records whose own signature failed (`invalid:…`, `untrusted_root`: the worst of their parts)
    /// that no failed listing counts (docs/security.md, "Trust levels"): no listing of theirs failed, and they are no
    /// notification V2 listing a transaction (its listing is counted by the envelope). E.g. a forged notification with
    /// no `data`, a forged entry of a notification-history page, a forged renewal info. How many, and the first line
    /// with its signature and source. In `path` order. `unanchored`: no JWS / no receipt trust anchor is configured, so
    /// every such record is `untrusted_root` and the `no_trust_anchor` warning says so: those are left out.
    package func failedRecordsUncounted(unanchored: (jws: Bool, receipts: Bool) = (false, false)) throws -> [(
        path: String, records: Int64, line: Int64, signature: String, source: String
    )] {
        func failed(_ t: String) -> String { "(\(t).signature = 'untrusted_root' OR \(t).signature LIKE 'invalid:%')" }
        let q = try SQLiteDatabase(path: database.path, readOnly: true).prepare(
            """
            SELECT f.path, count(*), min(r.line), r.signature, r.source  -- SQLite: the bare columns are of the min row
            FROM apple_record r JOIN source_file f USING (file_id)
            WHERE \(failed("r"))
              AND NOT EXISTS (SELECT 1 FROM apple_transaction t WHERE t.record_id = r.record_id AND \(failed("t")))
              AND NOT (r.source = 'notification_v2' AND EXISTS (SELECT 1 FROM apple_transaction t WHERE t.record_id = r.record_id))
              AND NOT (r.signature = 'untrusted_root' AND CASE WHEN r.source IN ('app_receipt', 'transaction_receipt')
                       THEN \(unanchored.receipts ? 1 : 0) ELSE \(unanchored.jws ? 1 : 0) END)
            GROUP BY r.file_id ORDER BY f.path
            """)
        var result: [(String, Int64, Int64, String, String)] = []
        while try q.step() {
            result.append((q.text(0), q.int64(1), q.int64(2), q.text(3), q.text(4)))
        }
        return result
    }

    /// The kinds of Apple record the ledger holds (`apple_record.source`).
    package func appleSources() throws -> Set<EvidenceSource> {
        let q = try database.prepare("SELECT DISTINCT source FROM apple_record")
        var sources = Set<EvidenceSource>()
        while try q.step() { if let source = EvidenceSource(rawValue: q.text(0)) { sources.insert(source) } }
        return sources
    }
}
