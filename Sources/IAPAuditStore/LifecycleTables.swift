/// The tables of the findings' lifecycle (docs/schema.md, Lifecycle): the runs the ledger recorded, the
/// inputs of the last one, each finding's state and its history, which only grows.
///
/// Unlike the record tables they are not read again from the inputs: a ledger dropped because its record
/// tables were declared otherwise (`Schema.tablesFingerprint`) keeps them (`Schema.lifecycleTables`), so a
/// changed declaration needs a `Schema.version` bump and a migration, not an edit here alone.
enum LifecycleTables {
    static let names = ["audit_run", "run_input", "finding_state", "finding_history", "manual_action"]

    /// The tables as this version declares them (`finding_state` with `Schema.findingStateAddedColumns`, the status and
    /// event `expired` and `audit_run.expired`: version 12's; and `manual_action`).
    static let create = create(stateColumns: Schema.findingStateAddedColumns, expired: true) + manualActionTable

    /// What people did about a purchase (`iap-audit resolve`), one row per action, never updated or deleted: evidence
    /// the next run reads (docs/semantics.md rule 25). `action` credited, refused, revoked or refunded; `quantity` the
    /// units credited or taken back (NULL: not said); `user_id` the account acted on; `at_ms` when it was done (ms since
    /// 1970 UTC; `--at`, else when it was recorded), `recorded_at_ms` when it was recorded.
    static let manualActionTable = """
        CREATE TABLE IF NOT EXISTS manual_action (
            action_id INTEGER PRIMARY KEY,
            transaction_id TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('credited', 'refused', 'revoked', 'refunded')),
            quantity INTEGER,
            user_id TEXT,
            by TEXT NOT NULL,
            note TEXT NOT NULL,
            at TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            recorded_at TEXT NOT NULL,
            recorded_at_ms INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS manual_action_transaction ON manual_action (transaction_id);
        CREATE TRIGGER IF NOT EXISTS manual_action_no_update BEFORE UPDATE ON manual_action
            BEGIN SELECT RAISE(ABORT, 'manual_action only grows'); END;
        CREATE TRIGGER IF NOT EXISTS manual_action_no_delete BEFORE DELETE ON manual_action
            BEGIN SELECT RAISE(ABORT, 'manual_action only grows'); END;

        """

    /// The tables with `stateColumns` added to `finding_state` (none: as versions 5 to 9 declared them); `expired`: with
    /// version 12's status and event `expired` and `audit_run.expired` (how many findings the run recorded expired).
    static func create(stateColumns: [String], expired: Bool = false) -> String {
        """
        CREATE TABLE IF NOT EXISTS audit_run (
            run INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            parameters TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            recorded_at_ms INTEGER NOT NULL,
            as_of TEXT,
            as_of_ms INTEGER,
            files INTEGER NOT NULL,
            findings INTEGER NOT NULL,
            new INTEGER NOT NULL,
            still_open INTEGER NOT NULL,
            resolved INTEGER NOT NULL,
            reopened INTEGER NOT NULL\(expired ? ",\n    expired INTEGER NOT NULL DEFAULT 0" : "")
        ) STRICT;
        CREATE TABLE IF NOT EXISTS run_input (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS finding_state (
            finding_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'acknowledged'\(expired ? ", 'expired'" : ""))),
            first_seen_run INTEGER NOT NULL,
            last_seen_run INTEGER NOT NULL,
            resolved_run INTEGER,
            resolved_at TEXT,
            resolved_at_ms INTEGER,
            resolved_evidence TEXT NOT NULL,
            acknowledged_at TEXT,
            acknowledged_at_ms INTEGER,
            note TEXT\(stateColumns.map { ",\n    " + $0 }.joined())
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS finding_state_status ON finding_state (status);
        CREATE INDEX IF NOT EXISTS finding_state_transaction ON finding_state (transaction_id);
        CREATE TABLE IF NOT EXISTS finding_history (
            run INTEGER NOT NULL,
            finding_id TEXT NOT NULL,
            event TEXT NOT NULL CHECK (event IN ('new', 'still_open', 'resolved', 'reopened', 'acknowledged'\(expired ? ", 'expired'" : ""))),
            time TEXT NOT NULL,
            time_ms INTEGER NOT NULL,
            detail TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS finding_history_finding ON finding_history (finding_id);
        CREATE INDEX IF NOT EXISTS finding_history_run ON finding_history (run, event);
        CREATE TRIGGER IF NOT EXISTS finding_history_no_update BEFORE UPDATE ON finding_history
            BEGIN SELECT RAISE(ABORT, 'finding_history only grows'); END;
        CREATE TRIGGER IF NOT EXISTS finding_history_no_delete BEFORE DELETE ON finding_history
            BEGIN SELECT RAISE(ABORT, 'finding_history only grows'); END;

        """
    }
}
