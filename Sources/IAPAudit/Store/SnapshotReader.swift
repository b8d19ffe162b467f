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
        // Counts, statuses and latencies from each file's summary fact (the views verify_status_distribution
        // and latency_percentiles give the same numbers in SQL, scanning the tables).
        var summary = FileFacts()
        var signedFiles: [Int64] = []
        let facts = try database.prepare("SELECT file_id, data FROM fact_chunk WHERE stream = ?1 ORDER BY chunk_id")
        try facts.bind([Int64(FactStream.summary.rawValue)])
        while try facts.step() {
            let raw = facts.blob(1)
            guard raw.count > 0 else { continue }
            var r = FactReader(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count)
            _ = r.u8()
            let file = FileFacts(&r)
            if file.appleRecords > 0 && file.statusCounts.values.reduce(0, +) < file.appleRecords { signedFiles.append(facts.int64(0)) }
            summary.add(file)
        }
        let statuses = summary.statusCounts.sorted { $0.key < $1.key }.map {
            StatusCount(status: Int($0.key), meaning: VerifyStatus.meaning(Int($0.key)), responses: $0.value)
        }
        let counts: [String: Int64] = [
            "client_report": summary.clientReports, "server_request": summary.serverRecords,
            "verify_response": summary.appleRecords, "receipt_transaction": summary.appleItems,
            "rejection": files.reduce(0) { $0 + $1.recordsRejected },
        ]
        var parameters: [String: String] = [:]
        let p = try database.prepare("SELECT name, value FROM run_parameter")
        while try p.step() { parameters[p.text(0)] = p.text(1) }
        var snapshot = AuditSnapshot(
            files: files, rejections: rejections, findings: try given ?? findings(), statuses: statuses,
            latency: LatencySummary(summary.latencyCounts), recordCounts: counts, parameters: parameters)
        snapshot.appleRecords = try appleRecords(in: Set(signedFiles))
        return snapshot
    }

    /// Records other than verifyReceipt responses of the given files (each file's records are one key
    /// range), in (path, line) order.
    private func appleRecords(in fileIds: Set<Int64>) throws -> [AppleRecordSummary] {
        guard !fileIds.isEmpty else { return [] }
        var ordered: [Int64] = []
        let list = try database.prepare("SELECT file_id FROM source_file ORDER BY path")
        while try list.step() {
            if fileIds.contains(list.int64(0)) { ordered.append(list.int64(0)) }
        }
        let a = try database.prepare(
            """
            SELECT f.path, r.line, r.source, r.signature, r.environment, r.bundle_id,
                   r.notification_type || coalesce('/' || r.notification_subtype, ''), r.notification_uuid, r.signed_date_ms,
                   r.request_id, r.status,
                   (SELECT coalesce(group_concat(t.transaction_id, ', '), '') FROM receipt_transaction t WHERE t.response_id = r.response_id),
                   CASE WHEN r.error_message IS NULL THEN r.notes ELSE json_insert(r.notes, '$[#]', r.error_message) END
            FROM verify_response r JOIN source_file f USING (file_id)
            WHERE r.response_id BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295 AND r.source <> 'verify_receipt'
            ORDER BY r.line
            """)
        var records: [AppleRecordSummary] = []
        for fileId in ordered {
            try a.bind([fileId])
            while try a.step() {
                records.append(
                    AppleRecordSummary(
                        location: SourceLocation(file: a.text(0), line: Int(a.int64(1))), source: a.text(2), signature: a.text(3),
                        environment: a.optionalText(4), bundleId: a.optionalText(5), notification: a.optionalText(6),
                        notificationUUID: a.optionalText(7), signedDateMs: a.optionalInt64(8), requestId: a.optionalText(9),
                        status: Int(a.int64(10)), transactionIds: a.text(11), notes: a.text(12)))
            }
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
