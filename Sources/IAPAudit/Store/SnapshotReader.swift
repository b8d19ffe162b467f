import Foundation

extension AuditStore {
    /// Reads back what the reports show, in a deterministic order.
    /// - Parameter findings: the findings just stored (saves reading them back); nil reads them.
    public func snapshot(findings given: [Finding]? = nil) throws -> AuditSnapshot {
        var files: [FileSummary] = []
        let f = try database.prepare(
            """
            SELECT path, sha256, bytes, kind, format, status, note, records_in, records_imported, records_rejected
            FROM source_file ORDER BY path
            """)
        while try f.step() {
            files.append(
                FileSummary(
                    path: f.text(0), sha256: f.text(1), bytes: f.int64(2), kind: f.text(3), format: f.text(4),
                    status: f.text(5), note: f.text(6), recordsIn: f.int64(7), recordsImported: f.int64(8),
                    recordsRejected: f.int64(9)))
        }
        var rejections: [Rejection] = []
        let r = try database.prepare(
            """
            SELECT s.path, r.line, r.reason, r.raw_text FROM rejection r JOIN source_file s USING (file_id) ORDER BY s.path, r.line
            """)
        while try r.step() {
            rejections.append(
                Rejection(location: SourceLocation(file: r.text(0), line: Int(r.int64(1))), reason: r.text(2), rawText: r.text(3)))
        }
        var statuses: [StatusCount] = []
        let s = try database.prepare("SELECT status, meaning, responses FROM verify_status_distribution ORDER BY status")
        while try s.step() { statuses.append(StatusCount(status: Int(s.int64(0)), meaning: s.text(1), responses: s.int64(2))) }
        let l = try database.prepare("SELECT requests, p50_ms, p90_ms, p95_ms, p99_ms, max_ms FROM latency_percentiles")
        _ = try l.step()
        let latency = LatencySummary(
            requests: l.int64(0), p50Ms: l.optionalInt64(1), p90Ms: l.optionalInt64(2),
            p95Ms: l.optionalInt64(3), p99Ms: l.optionalInt64(4), maxMs: l.optionalInt64(5))
        var counts: [String: Int64] = [:]
        for table in ["client_report", "server_request", "verify_response", "receipt_transaction", "rejection"] {
            counts[table] = try database.scalar("SELECT count(*) FROM \(table)")
        }
        var parameters: [String: String] = [:]
        let p = try database.prepare("SELECT name, value FROM run_parameter")
        while try p.step() { parameters[p.text(0)] = p.text(1) }
        var snapshot = AuditSnapshot(
            files: files, rejections: rejections, findings: try given ?? findings(), statuses: statuses,
            latency: latency, recordCounts: counts, parameters: parameters)
        snapshot.appleRecords = try appleRecords()
        return snapshot
    }

    private func appleRecords() throws -> [AppleRecordSummary] {
        let a = try database.prepare(
            """
            SELECT f.path, r.line, r.source, r.signature, r.environment, r.bundle_id,
                   r.notification_type || coalesce('/' || r.notification_subtype, ''), r.notification_uuid, r.signed_date_ms,
                   r.request_id, r.status,
                   (SELECT coalesce(group_concat(t.transaction_id, ', '), '') FROM receipt_transaction t WHERE t.response_id = r.response_id),
                   CASE WHEN r.error_message IS NULL THEN r.notes ELSE json_insert(r.notes, '$[#]', r.error_message) END
            FROM verify_response r JOIN source_file f USING (file_id)
            WHERE r.source <> 'verify_receipt' ORDER BY f.path, r.line
            """)
        var records: [AppleRecordSummary] = []
        while try a.step() {
            records.append(
                AppleRecordSummary(
                    location: SourceLocation(file: a.text(0), line: Int(a.int64(1))), source: a.text(2), signature: a.text(3),
                    environment: a.optionalText(4), bundleId: a.optionalText(5), notification: a.optionalText(6),
                    notificationUUID: a.optionalText(7), signedDateMs: a.optionalInt64(8), requestId: a.optionalText(9),
                    status: Int(a.int64(10)), transactionIds: a.text(11), notes: a.text(12)))
        }
        return records
    }

    /// The stored findings, in table order.
    public func findings() throws -> [Finding] {
        var result: [Finding] = []
        let q = try database.prepare(
            """
            SELECT kind, reason, transaction_id, original_transaction_id, product_id, user_ids, environment, first_seen_ms,
                   evidence, detail FROM finding ORDER BY finding_id
            """)
        while try q.step() {
            guard let kind = FindingKind(rawValue: q.text(0)) else { continue }
            let evidence = IdList.decode(q.text(8)).compactMap { text -> SourceLocation? in
                guard let colon = text.lastIndex(of: ":"), let line = Int(text[text.index(after: colon)...]) else { return nil }
                return SourceLocation(file: String(text[..<colon]), line: line)
            }
            result.append(
                Finding(
                    kind: kind, reason: q.text(1), transactionId: q.text(2), originalTransactionId: q.optionalText(3),
                    productId: q.optionalText(4),
                    userIds: IdList.decode(q.text(5)),
                    environment: q.optionalText(6), firstSeenMs: q.optionalInt64(7), evidence: evidence, detail: q.text(9)))
        }
        return result
    }
}
