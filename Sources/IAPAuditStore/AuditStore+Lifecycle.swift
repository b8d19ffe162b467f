import IAPAuditModel

/// One run's lifecycle, recorded in the transaction that stores its findings (`AuditStore.replaceFindings`):
/// a row of `audit_run`, the run's inputs (`run_input`), each finding's new state and a history row per change.
package struct LifecycleRecord: Sendable {
    package var run: Int
    /// SHA-256 of the run's identity (`RunIdentity` in the pipeline) and its text without the files.
    package var fingerprint: String
    package var parameters: String
    /// Machine clock, ms since 1970 UTC.
    package var recordedAtMs: Int64
    package var asOfMs: Int64?
    /// The files of the run's identity (path, SHA-256): the next run's records from other files are new.
    package var inputs: [(path: String, sha256: String)]
    /// Every file of the run, skipped copies too (`run_input`): the next run brought those not among them.
    package var given: [(path: String, sha256: String)]
    package var findings: Int
    package var changes: [FindingChange]

    package init(
        run: Int, fingerprint: String, parameters: String, recordedAtMs: Int64, asOfMs: Int64?, inputs: [(path: String, sha256: String)],
        given: [(path: String, sha256: String)], findings: Int, changes: [FindingChange]
    ) {
        (self.run, self.fingerprint, self.parameters, self.recordedAtMs, self.asOfMs) = (run, fingerprint, parameters, recordedAtMs, asOfMs)
        (self.inputs, self.given, self.findings, self.changes) = (inputs, given, findings, changes)
    }
}

/// A file of the ledger now (`source_file`).
package struct LedgerFile: Sendable, Equatable {
    package var fileId: Int64
    package var path: String
    package var sha256: String
    /// `imported`, `skipped` or `rejected`.
    package var status: String
}

extension AuditStore {
    /// The last run the ledger recorded (its number and fingerprint); nil before the first.
    package func lastRun() throws -> (run: Int, fingerprint: String)? {
        let q = try database.prepare("SELECT run, fingerprint FROM audit_run ORDER BY run DESC LIMIT 1")
        return try q.step() ? (Int(q.int64(0)), q.text(1)) : nil
    }

    /// The findings open or acknowledged after the last recorded run.
    package func unresolvedFindings() throws -> [FindingState] {
        let q = try database.prepare(
            "SELECT \(LifecycleReader.stateColumns) FROM finding_state WHERE status NOT IN ('resolved', 'expired') ORDER BY finding_id")
        var states: [FindingState] = []
        while try q.step() { states.append(LifecycleReader.state(q)) }
        return states
    }

    /// The inputs of the last recorded run: SHA-256 by path.
    package func runInputs() throws -> [String: String] {
        let q = try database.prepare("SELECT path, sha256 FROM run_input")
        var inputs: [String: String] = [:]
        while try q.step() { inputs[q.text(0)] = q.text(1) }
        return inputs
    }

    /// Every file of the ledger now, by path.
    package func ledgerFiles() throws -> [LedgerFile] {
        let q = try database.prepare("SELECT file_id, path, sha256, status FROM source_file ORDER BY path")
        var files: [LedgerFile] = []
        while try q.step() { files.append(LedgerFile(fileId: q.int64(0), path: q.text(1), sha256: q.text(2), status: q.text(3))) }
        return files
    }

    /// Writes one run's lifecycle (inside `replaceFindings`' transaction).
    func record(_ r: LifecycleRecord) throws {
        try database.prepare(
            """
            INSERT INTO audit_run (run, fingerprint, parameters, recorded_at, recorded_at_ms, as_of, as_of_ms, files, findings, new,
                still_open, resolved, reopened, expired)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """
        ).run([
            r.run, r.fingerprint, r.parameters, Timestamp.iso(r.recordedAtMs), r.recordedAtMs, r.asOfMs.map(Timestamp.iso), r.asOfMs,
            r.inputs.count, r.findings, count(r.changes, .new), count(r.changes, .stillOpen), count(r.changes, .resolved),
            count(r.changes, .reopened), count(r.changes, .expired),
        ])
        try replaceRunInputs(r.given)
        let state = try database.prepare(Self.stateInsert)
        let history = try database.prepare(Self.historyInsert)
        for change in r.changes where change.isRecorded {
            try state.run(Self.values(change.state))
            try history.run(Self.values(run: r.run, change, atMs: r.recordedAtMs))
        }
        // The other still-open findings (most of them, every night) change only their last_seen_run: the unresolved
        // states this run did not write are exactly those (new and reopened ones have this run's number already).
        try database.prepare(
            "UPDATE finding_state SET last_seen_run = ?1 WHERE status NOT IN ('resolved', 'expired') AND last_seen_run <> ?1"
        ).run([
            r.run
        ])
    }

    /// Rewrites `run_input`: the files of the last run (a re-run records no lifecycle, but what it brought: a copy
    /// delivered again, skipped, is not brought again by the next run).
    func replaceRunInputs(_ inputs: [(path: String, sha256: String)]) throws {
        try database.execute("DELETE FROM run_input")
        let input = try database.prepare("INSERT INTO run_input (path, sha256) VALUES (?1, ?2)")
        for file in inputs { try input.run([file.path, file.sha256]) }
    }

    private func count(_ changes: [FindingChange], _ event: LifecycleEvent) -> Int { changes.filter { $0.event == event }.count }

    static let stateInsert = """
        INSERT OR REPLACE INTO finding_state (finding_id, kind, transaction_id, reason, status, first_seen_run, last_seen_run,
            resolved_run, resolved_at, resolved_at_ms, resolved_evidence, acknowledged_at, acknowledged_at_ms, note, acknowledged_by)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
        """

    static func values(_ s: FindingState) -> [any SQLBindable] {
        [
            s.id, s.kind, s.transactionId, s.reason, s.status.rawValue, s.firstSeenRun, s.lastSeenRun, s.resolvedRun,
            s.resolvedAtMs.map(Timestamp.iso), s.resolvedAtMs, IdList.encode(s.resolvedEvidence), s.acknowledgedAtMs.map(Timestamp.iso),
            s.acknowledgedAtMs, s.note, s.acknowledgedBy,
        ]
    }

    static let historyInsert = "INSERT INTO finding_history (run, finding_id, event, time, time_ms, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"

    static func values(run: Int, _ change: FindingChange, atMs: Int64) -> [any SQLBindable] {
        [run, change.state.id, change.event.rawValue, Timestamp.iso(atMs), atMs, change.detail]
    }
}
