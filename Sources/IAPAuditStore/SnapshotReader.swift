import Foundation
import IAPAuditModel

extension AuditStore {
    /// What the reports show, in a deterministic order: files, statuses and counts read now; findings,
    /// rejections and Apple records streamed from the database while the reports are written (each
    /// read on a connection of its own, so the snapshot holds no connection open).
    public func snapshot() throws -> AuditSnapshot { try Self.snapshot(path: database.path) }

    /// - Parameters:
    ///   - findings: the findings to report, when not (yet) the stored ones.
    ///   - parameters: the run parameters, when not (yet) the stored ones.
    ///   - warnings: the run's warnings, when not (yet) the stored ones.
    /// Reads on a read-only connection of its own (another connection may be writing meanwhile).
    package static func snapshot(
        path: String, findings given: FindingStream? = nil, parameters givenParameters: [String: String]? = nil,
        warnings givenWarnings: [RunWarning]? = nil
    ) throws -> AuditSnapshot {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        var files: [FileSummary] = []
        let f = try database.prepare(
            """
            SELECT path, sha256, bytes, kind, format, status,
                   note || CASE WHEN given = 0 THEN ' (kept in the ledger: not given this run)' ELSE '' END,
                   records_in, records_imported, records_rejected
            FROM source_file ORDER BY path
            """)
        while try f.step() {
            files.append(
                FileSummary(
                    path: f.text(0), sha256: f.text(1), bytes: f.int64(2), kind: f.text(3), format: f.text(4),
                    status: f.text(5), note: f.text(6), recordsIn: f.int64(7), recordsImported: f.int64(8),
                    recordsRejected: f.int64(9)))
        }
        let rejections = RecordStream<Rejection>(count: Int(try database.scalar("SELECT count(*) FROM rejection"))) {
            limit, body in
            let r = try SQLiteDatabase(path: path, readOnly: true).prepare(
                """
                SELECT s.path, r.line, r.reason, r.raw_text FROM rejection r JOIN source_file s USING (file_id)
                ORDER BY s.path, r.line LIMIT ?1
                """)
            r.bind([Int64(min(limit, Int(Int64.max)))])
            while try r.step() {
                try body(Rejection(location: SourceLocation(file: r.text(0), line: Int(r.int64(1))), reason: r.text(2), rawText: r.text(3)))
            }
        }
        // Counts, statuses and latencies from each file's summary fact (the views verify_status_distribution
        // and latency_percentiles give the same numbers in SQL, scanning the tables).
        var summary = FileFacts()
        var signedFiles: [Int64] = []
        let facts = try database.prepare(
            "SELECT c.file_id, c.data, c.chunk_id, c.checksum, coalesce(f.path, '') FROM fact_chunk c LEFT JOIN source_file f USING (file_id) "
                + "WHERE c.stream = ?1 ORDER BY c.chunk_id")
        facts.bind([Int64(FactStream.summary.rawValue)])
        while try facts.step() {
            let raw = facts.blob(1)
            try LedgerDamage.check(
                chunk: facts.int64(2), fileId: facts.int64(0), stream: Int64(FactStream.summary.rawValue), part: 0, data: raw,
                stored: facts.int64(3), path: facts.text(4))
            guard raw.count > 0 else { continue }
            let file = try FileFacts.decoded(raw, chunk: facts.int64(2), fileId: facts.int64(0), path: facts.text(4))
            if file.appleRecords > 0 && file.statusCounts.values.reduce(0, +) < file.appleRecords { signedFiles.append(facts.int64(0)) }
            summary.add(file)
        }
        let statuses = summary.statusCounts.sorted { $0.key < $1.key }.map {
            StatusCount(status: Int($0.key), meaning: VerifyStatus.meaning(Int($0.key)), responses: $0.value)
        }
        let counts: [String: Int64] = [
            "client_report": summary.clientReports, "server_request": summary.serverRecords,
            "apple_record": summary.appleRecords, "apple_transaction": summary.appleItems,
            "rejection": files.reduce(0) { $0 + $1.recordsRejected },
        ]
        var parameters: [String: String] = [:]
        let p = try database.prepare("SELECT name, value FROM run_parameter")
        while try p.step() { parameters[p.text(0)] = p.text(1) }
        if let givenParameters { parameters = givenParameters }
        var warnings: [RunWarning] = []
        let w = try database.prepare("SELECT code, message, file FROM run_warning ORDER BY rowid")
        while try w.step() { warnings.append(RunWarning(RunWarning.Code(rawValue: w.text(0)), w.text(1), file: w.optionalText(2))) }
        var snapshot = AuditSnapshot(
            files: files, rejections: rejections, findings: try given ?? findingStream(database, path: path), statuses: statuses,
            latency: LatencySummary(summary.latencyCounts), recordCounts: counts, parameters: parameters)
        snapshot.warnings = givenWarnings ?? warnings
        let appleCount = summary.appleRecords - summary.statusCounts.values.reduce(0, +)
        let signed = Set(signedFiles)
        snapshot.appleRecords = RecordStream(count: Int(appleCount)) { limit, body in
            try appleRecords(SQLiteDatabase(path: path, readOnly: true), in: signed, limit: limit, body)
        }
        snapshot.prices = try verifiedPrices(database)
        return snapshot
    }

    /// Apple's price of each transaction a verified signed transaction gives (`price`, `currency`), the first such
    /// listing's (record order): what a finding's action is worth (`FindingAction.amountMilliunits`).
    /// - Parameter of: only these transactions' (nil: every transaction's).
    static func verifiedPrices(_ database: SQLiteDatabase, of transactionIds: [String]? = nil) throws -> [String: Money] {
        var prices: [String: Money] = [:]
        let q = try database.prepare(
            """
            SELECT transaction_id, price_milliunits, currency FROM apple_transaction
            WHERE signature = 'verified' AND price_milliunits IS NOT NULL AND currency IS NOT NULL
            \(transactionIds == nil ? "" : "AND transaction_id IN (SELECT value FROM json_each(?1))")
            ORDER BY record_id DESC, position DESC
            """)
        if let transactionIds { q.bind([IdList.encode(transactionIds)]) }
        while try q.step() { prices[q.text(0)] = Money(milliunits: q.int64(1), currency: q.text(2)) }
        return prices
    }

    /// Records other than verifyReceipt responses of the given files (each file's records are one key
    /// range), in (path, line) order.
    private static func appleRecords(
        _ database: SQLiteDatabase, in fileIds: Set<Int64>, limit: Int, _ body: (AppleRecordSummary) throws -> Void
    ) throws {
        guard !fileIds.isEmpty else { return }
        var left = limit
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
                   (SELECT coalesce(group_concat(t.transaction_id, ', '), '') FROM apple_transaction t WHERE t.record_id = r.record_id),
                   CASE WHEN r.error_message IS NULL THEN r.notes ELSE json_insert(r.notes, '$[#]', r.error_message) END
            FROM apple_record r JOIN source_file f USING (file_id)
            WHERE r.record_id BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295 AND r.source <> 'verify_receipt'
            ORDER BY r.line
            """)
        for fileId in ordered where left > 0 {
            a.bind([fileId])
            while left > 0, try a.step() {
                left -= 1
                try body(
                    AppleRecordSummary(
                        location: SourceLocation(file: a.text(0), line: Int(a.int64(1))), source: a.text(2), signature: a.text(3),
                        environment: a.optionalText(4), bundleId: a.optionalText(5), notification: a.optionalText(6),
                        notificationUUID: a.optionalText(7), signedDateMs: a.optionalInt64(8), requestId: a.optionalText(9),
                        status: Int(a.int64(10)), transactionIds: a.text(11), notes: a.text(12)))
            }
            a.reset()
        }
    }

    /// The stored findings: counts by kind and reason and problems per day now, the findings
    /// themselves read in table order when asked for.
    static func findingStream(_ database: SQLiteDatabase, path: String) throws -> FindingStream {
        var counts: [FindingKind: [(String, Int, Int, Int)]] = [:]
        let c = try database.prepare(
            """
            SELECT kind, reason, count(*), count(*) FILTER (WHERE apple_confirmation = 'confirmed'),
                   count(*) FILTER (WHERE apple_confirmation = 'refunded') FROM finding
            GROUP BY kind, reason ORDER BY kind, reason
            """)
        while try c.step() {
            guard let kind = FindingKind(rawValue: c.text(0)) else { continue }
            counts[kind, default: []].append((c.text(1), Int(c.int64(2)), Int(c.int64(3)), Int(c.int64(4))))
        }
        var perDay: [(dayMs: Int64, findings: Int)] = []
        let problems = FindingKind.problems.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let d = try database.prepare(
            """
            SELECT first_seen_ms - ((first_seen_ms % 86400000) + 86400000) % 86400000 AS day, count(*) FROM finding
            WHERE kind IN (\(problems)) AND first_seen_ms IS NOT NULL GROUP BY day ORDER BY day
            """)
        while try d.step() { perDay.append((d.int64(0), Int(d.int64(1)))) }
        return FindingStream(
            counts: FindingKind.allCases.flatMap { kind in
                (counts[kind] ?? []).map { FindingCount(kind: kind, reason: $0.0, count: $0.1, confirmed: $0.2, refunded: $0.3) }
            },
            problemsPerDay: perDay,
            produce: { kinds, limit, body in
                let names = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                let q = try SQLiteDatabase(path: path, readOnly: true).prepare(
                    "SELECT \(findingColumns) FROM finding WHERE kind IN (\(names)) ORDER BY rowid LIMIT ?1")
                q.bind([Int64(limit)])
                while try q.step() {
                    if let finding = finding(q) { try body(finding) }
                }
            })
    }

    /// The columns `finding(_:)` reads, in its order.
    static let findingColumns = """
        kind, reason, transaction_id, original_transaction_id, product_id, user_ids, environment, first_seen_ms, evidence, detail,
        apple_confirmation, loss_at_ms, facts
        """
    /// How many columns `findingColumns` names: the index of a column selected after them.
    static let findingColumnCount: Int32 = 13

    /// The finding of a row selecting `findingColumns`; nil for a kind this version does not know.
    static func finding(_ q: SQLiteStatement) -> Finding? {
        guard let kind = FindingKind(rawValue: q.text(0)) else { return nil }
        let evidence = IdList.decode(q.text(8)).compactMap { text -> SourceLocation? in
            guard let colon = text.lastIndex(of: ":"), let line = Int(text[text.index(after: colon)...]) else { return nil }
            return SourceLocation(file: String(text[..<colon]), line: line)
        }
        return Finding(
            kind: kind, reason: q.text(1), transactionId: q.text(2), originalTransactionId: q.optionalText(3),
            productId: q.optionalText(4), userIds: IdList.decode(q.text(5)), environment: q.optionalText(6),
            firstSeenMs: q.optionalInt64(7), lossAtMs: q.optionalInt64(11), evidence: evidence, detail: q.text(9),
            facts: FindingFacts(json: q.text(12)) ?? FindingFacts(),
            appleConfirmation: q.optionalText(10).flatMap(AppleConfirmation.init(rawValue:)))
    }

    /// The stored findings, in table order.
    public func findings() throws -> [Finding] { try Self.findingStream(database, path: database.path).all() }
}
