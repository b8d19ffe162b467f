import IAPAuditModel

/// Reads the findings' lifecycle on a read-only connection of its own, so a run can read it while its own
/// connection builds the indexes (WAL): earlier states, the last run's stored findings, the records that
/// resolved a finding, a recorded run's changes.
package final class LifecycleReader {
    private let database: SQLiteDatabase
    private var stateQuery: SQLiteStatement?
    private var evidenceQuery: SQLiteStatement?

    /// Throws `SQLiteError` when the database cannot be opened.
    package init(path: String) throws { database = try SQLiteDatabase(path: path, readOnly: true) }

    /// The columns `state(_:from:)` reads, in order.
    static let stateColumnNames = [
        "finding_id", "kind", "transaction_id", "reason", "status", "first_seen_run", "last_seen_run", "resolved_run", "resolved_at_ms",
        "resolved_evidence", "acknowledged_at_ms", "note", "acknowledged_by",
    ]
    static let stateColumns = stateColumnNames.joined(separator: ", ")

    /// The state in `stateColumns` order from column `first` on.
    static func state(_ q: SQLiteStatement, from first: Int32 = 0) -> FindingState {
        FindingState(
            id: q.text(first), kind: q.text(first + 1), transactionId: q.text(first + 2), reason: q.text(first + 3),
            status: FindingStatus(rawValue: q.text(first + 4)) ?? .open, firstSeenRun: Int(q.int64(first + 5)),
            lastSeenRun: Int(q.int64(first + 6)), resolvedRun: q.optionalInt64(first + 7).map(Int.init),
            resolvedAtMs: q.optionalInt64(first + 8), resolvedEvidence: IdList.decode(q.text(first + 9)),
            acknowledgedAtMs: q.optionalInt64(first + 10), note: q.optionalText(first + 11), acknowledgedBy: q.optionalText(first + 12))
    }

    /// The state of finding `id`, or nil when the ledger never saw it.
    package func state(_ id: String) throws -> FindingState? {
        let q = try stateQuery ?? database.prepare("SELECT \(Self.stateColumns) FROM finding_state WHERE finding_id = ?1")
        stateQuery = q
        q.bind([id])
        defer { q.reset() }
        return try q.step() ? Self.state(q) : nil
    }

    /// The states of the findings of `ids` the ledger holds as resolved (one never seen is absent). Looked up one by
    /// one, or, when they are many against the resolved findings (a night that lost a log has as many new findings as
    /// the ledger), read from one scan of those.
    package func resolvedStates(_ ids: [String]) throws -> [String: FindingState] {
        var states: [String: FindingState] = [:]
        guard !ids.isEmpty else { return states }
        let resolved = try database.scalar("SELECT count(*) FROM finding_state WHERE status IN ('resolved', 'expired')")
        if Int64(ids.count) * 8 < resolved {
            for id in ids { if let state = try state(id), state.status.isClosed { states[id] = state } }
            return states
        }
        let wanted = Set(ids.map(ExactText.init))
        let q = try database.prepare("SELECT \(Self.stateColumns) FROM finding_state WHERE status IN ('resolved', 'expired')")
        while try q.step() {
            let id = q.text(0)
            if wanted.contains(ExactText(id)) { states[id] = Self.state(q) }
        }
        return states
    }

    /// The original transaction id the stored findings (the last run's) give each finding's transaction: by
    /// transaction id, nil for one whose finding has none (or is not stored). Holds transaction ids only: a night
    /// that lost a log resolves as many findings as the ledger has.
    package func originalIds(of findings: [FindingState]) throws -> [String: String?] {
        let q = try database.prepare("SELECT original_transaction_id FROM finding WHERE finding_id = ?1")
        var originals: [String: String?] = [:]
        for state in findings {
            q.bind([state.id])
            originals.updateValue(try q.step() ? q.optionalText(0) : nil, forKey: state.transactionId)
            q.reset()
        }
        return originals
    }

    /// The evidence (`file:line`) of stored finding `id` (the last run's); empty when it is not stored.
    package func storedEvidence(_ id: String) throws -> [String] {
        let q = try evidenceQuery ?? database.prepare("SELECT evidence FROM finding WHERE finding_id = ?1")
        evidenceQuery = q
        q.bind([id])
        defer { q.reset() }
        return try q.step() ? IdList.decode(q.text(0)) : []
    }

    /// The records about each transaction in the files `files` (file id → path), with their times (client or
    /// server `ts`, Apple `received_at`, else the record's signed date): client reports of T, server-log lines
    /// carrying or crediting T (or carrying its original id), Apple records listing T. In (file, line) order.
    /// - Parameter transactions: each transaction id with its original id (nil or the same: none).
    package func records(about transactions: [String: String?], in files: [Int64: String]) throws -> [String: [(
        location: SourceLocation, ms: Int64?
    )]] {
        var byOriginal: [String: [String]] = [:]
        for (t, original) in transactions {
            if let original, original != t { byOriginal[original, default: []].append(t) }
        }
        // (file's place in path order, line, time) per transaction, put in order once all are read: no table of every
        // line of a file (a server log given back after a night without it has a line for each finding resolved).
        var found: [String: [(file: Int32, line: Int64, ms: Int64?)]] = [:]
        let range = "record_id BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295"
        let client = try database.prepare("SELECT transaction_id, line, ts_ms FROM client_report WHERE \(range)")
        let server = try database.prepare(
            "SELECT transaction_ids, credited_transaction_ids, line, ts_ms FROM server_request WHERE \(range)")
        let apple = try database.prepare(
            """
            SELECT t.transaction_id, r.line, coalesce(r.received_at_ms, r.signed_date_ms)
            FROM apple_transaction t JOIN apple_record r USING (record_id) WHERE t.\(range)
            """)
        let paths = files.sorted(by: { $0.value.utf8.lexicographicallyPrecedes($1.value.utf8) })
        for (place, (fileId, _)) in paths.enumerated() {
            func add(_ t: String, _ line: Int64, _ ms: Int64?) {
                guard transactions[t] != nil else { return }
                found[t, default: []].append((Int32(place), line, ms))
            }
            client.bind([fileId])
            while try client.step() { if let t = client.optionalText(0) { add(t, client.int64(1), client.optionalInt64(2)) } }
            server.bind([fileId])
            while try server.step() {
                let carried = IdList.decode(server.text(0))
                for id in carried + (server.optionalText(1).map(IdList.decode) ?? []) {
                    add(id, server.int64(2), server.optionalInt64(3))
                    for t in byOriginal[id] ?? [] where carried.contains(id) { add(t, server.int64(2), server.optionalInt64(3)) }
                }
            }
            apple.bind([fileId])
            while try apple.step() { add(apple.text(0), apple.int64(1), apple.optionalInt64(2)) }
        }
        var result: [String: [(location: SourceLocation, ms: Int64?)]] = [:]
        result.reserveCapacity(found.count)
        for (t, records) in found {
            // A line once (one naming T twice: carried and credited), with the time it was first found with.
            var seen = Set<Int64>()
            var unique: [(file: Int32, line: Int64, ms: Int64?)] = []
            for r in records where seen.insert(Int64(r.file) << 40 | r.line).inserted { unique.append(r) }
            unique.sort { ($0.file, $0.line) < ($1.file, $1.line) }
            result[t] = unique.map { (SourceLocation(file: paths[Int($0.file)].value, line: Int($0.line)), $0.ms) }
        }
        return result
    }

    /// The findings whose action the last run stored (`finding_action`, joined with the lifecycle) has code `code`: read
    /// before this run replaces the table (the findings that became payable: `ask_apple` then).
    package func findingIds(withAction code: FindingActionCode) throws -> Set<String> {
        let q = try database.prepare("SELECT finding_id FROM finding_action WHERE code = ?1")
        q.bind([code.rawValue])
        var ids = Set<String>()
        while try q.step() { ids.insert(q.text(0)) }
        return ids
    }

    /// Apple's price of each of `transactionIds` a verified signed transaction gives, as `AuditSnapshot.prices` takes it
    /// (the first such listing, record order).
    package func verifiedPrices(of transactionIds: [String]) throws -> [String: Money] {
        transactionIds.isEmpty ? [:] : try AuditStore.verifiedPrices(database, of: transactionIds)
    }

    /// When run `run` was recorded (machine clock, ms since 1970 UTC); nil when there is no such run.
    package func recordedAtMs(ofRun run: Int) throws -> Int64? {
        let q = try database.prepare("SELECT recorded_at_ms FROM audit_run WHERE run = ?1")
        q.bind([run])
        return try q.step() ? q.int64(0) : nil
    }

    /// The changes recorded by run `run` (its events, not the acknowledgements since), with each finding's
    /// state as it is now, in `LifecycleEvent` order then by id.
    package func changes(ofRun run: Int) throws -> [FindingChange] {
        let q = try database.prepare(
            """
            SELECT h.event, h.detail, \(Self.stateColumnNames.map { "s." + $0 }.joined(separator: ", "))
            FROM finding_history h JOIN finding_state s USING (finding_id) WHERE h.run = ?1 AND h.event <> 'acknowledged'
            """)
        q.bind([run])
        var changes: [FindingChange] = []
        var recorded = Set<ExactText>()
        while try q.step() {
            guard let event = LifecycleEvent(rawValue: q.text(0)) else { continue }
            // A still_open row is one whose reason changed (the detail says from what).
            let change = FindingChange(
                event: event, state: Self.state(q, from: 2), detail: q.text(1), reasonWas: event == .stillOpen ? "" : nil)
            recorded.insert(ExactText(change.state.id))
            changes.append(change)
        }
        // The still-open findings whose reason did not change have no history row: the run's unresolved findings
        // it neither found first, nor reopened, nor recorded with another reason. (Filtered here, not by a correlated
        // NOT EXISTS: SQLite searched the run's history for each state, 146 s for 45,000 findings.)
        let open = try database.prepare(
            "SELECT \(Self.stateColumns) FROM finding_state s WHERE s.last_seen_run = ?1 AND s.status NOT IN ('resolved', 'expired')")
        open.bind([run])
        while try open.step() {
            let state = Self.state(open)
            guard !recorded.contains(ExactText(state.id)) else { continue }
            let detail = state.reason + (state.status == .acknowledged ? " (acknowledged: \(state.note ?? ""))" : "")
            changes.append(FindingChange(event: .stillOpen, state: state, detail: detail))
        }
        return changes.sorted {
            $0.event != $1.event ? $0.event < $1.event : $0.state.id.utf8.lexicographicallyPrecedes($1.state.id.utf8)
        }
    }
}
