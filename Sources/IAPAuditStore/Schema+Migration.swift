import IAPAuditModel

/// The columns later versions add to a table, and the migrations that add them to an older ledger in place:
/// the ledger keeps the records of files no longer given, which could not be read again, so a version that
/// only adds columns keeps every record.
extension Schema {
    /// `source_file`'s columns added by version 7, as its CREATE TABLE and `migrateFromVersion6` write them:
    /// `given` (1: the last run was given the file; 0: kept though no longer given), its `stat(2)` when it
    /// was stored (`mtime_ns`: modification time in nanoseconds since 1970 UTC, `inode`; 0 and 0: unknown,
    /// the file is hashed), and `content_sha256` (the SHA-256 of its content: of the inflated bytes for a
    /// gzip file; NULL: `sha256`).
    static let sourceFileColumns = [
        "given INTEGER NOT NULL DEFAULT 1", "mtime_ns INTEGER NOT NULL DEFAULT 0", "inode INTEGER NOT NULL DEFAULT 0",
        "content_sha256 TEXT",
    ]

    /// `finding`'s columns added by version 8: when a problem finding's loss happened (`Finding.lossAtMs`; ISO 8601
    /// UTC and milliseconds since 1970 UTC), the date a close books it by. NULL for info findings and the
    /// verification backlog, and for the findings of a migrated ledger until its next run stores them again.
    static let findingAddedColumns = ["loss_at TEXT", "loss_at_ms INTEGER"]

    /// `close_loss`'s column added by version 8: the loss's date the close booked it by (`finding.loss_at_ms`);
    /// NULL in the rows of a close made before.
    static let closeLossColumns = ["loss_at_ms INTEGER"]

    /// `fact_chunk`'s column added by version 9: `checksum`, `FactChecksum.chunk` of the chunk's `data` seeded with its
    /// `file_id`, `stream` and `part` (XXH64's 64 bits as a signed INTEGER), written with the chunk and checked when it
    /// is read: a chunk that fails it stops the run (docs/security.md, A damaged ledger).
    static let factChunkColumns = ["checksum INTEGER NOT NULL DEFAULT 0"]

    /// `finding`'s column added by version 10: `facts`, the finding's facts as JSON (`FindingFacts.json`, keys in
    /// `FindingField` order; `{}` in the rows of a migrated ledger until its next run stores them again).
    static let findingFactsColumns = ["facts TEXT NOT NULL DEFAULT '{}'"]

    /// `finding_state`'s column added by version 10: who acknowledged the finding (`iap-audit ack --by`, else the login
    /// name); NULL when not said.
    static let findingStateAddedColumns = ["acknowledged_by TEXT"]

    /// `apple_record`'s column added by version 11: the transaction id a wrapped Get Transaction Info answer was asked
    /// about (`iap-audit ask-apple`'s evidence).
    static let appleRecordAddedColumns = ["asked_transaction_id TEXT"]

    /// The record tables as versions 6 to 10 declared them: this version's without `appleRecordAddedColumns`.
    static let recordTablesVersion10 = RecordTables.create.replacingOccurrences(of: "\n    asked_transaction_id TEXT,", with: "")

    /// `trace`'s indexes as versions 6 to 10 declared them: this version's without `client_report_product` (trace's
    /// search by product).
    static let traceIndexesVersion10 = traceIndexes.replacingOccurrences(
        of: "\nCREATE INDEX IF NOT EXISTS client_report_product ON client_report (product_id, transaction_id) "
            + "WHERE product_id IS NOT NULL;",
        with: "")

    /// The lifecycle tables as versions 6 to 9 declared them (`manual_action` is version 11's).
    static let lifecycleVersion9 = LifecycleTables.create(stateColumns: [])

    /// `finding.apple_confirmation`'s values as versions 6 to 10 declared them: without version 11's `not_found`.
    static let confirmationsVersion10 = ["confirmed", "refunded", "claimed"]

    /// `finding_action` as version 10 declared it: its codes without version 11's `refuse`.
    static let actionTableVersion10 = actionTable(codes: FindingActionCode.allCases.map(\.rawValue).filter { $0 != "refuse" })

    /// The fingerprint of version 11's tables (before the lifecycle's `expired`): a ledger that has it is migrated.
    static let version11Fingerprint = fingerprint(
        ownTables(
            sourceFileColumns, finding: findingAddedColumns + findingFactsColumns, closeLoss: closeLossColumns, factChunk: factChunkColumns)
            + actionTable + LifecycleTables.create(stateColumns: findingStateAddedColumns) + LifecycleTables.manualActionTable
            + RecordTables.create + indexes + traceIndexes)

    /// The fingerprint of version 10's tables (before `asked_transaction_id`, `manual_action` and the action `refuse`).
    static let version10Fingerprint = fingerprint(
        ownTables(
            sourceFileColumns, finding: findingAddedColumns + findingFactsColumns, closeLoss: closeLossColumns, factChunk: factChunkColumns,
            confirmations: confirmationsVersion10) + actionTableVersion10 + LifecycleTables.create(stateColumns: findingStateAddedColumns)
            + recordTablesVersion10 + indexes
            + traceIndexesVersion10)

    /// The fingerprint of version 9's tables (before version 10's columns and `finding_action`): a ledger that has it is
    /// migrated.
    static let version9Fingerprint = fingerprint(
        ownTables(
            sourceFileColumns, finding: findingAddedColumns, closeLoss: closeLossColumns, factChunk: factChunkColumns,
            confirmations: confirmationsVersion10)
            + lifecycleVersion9 + recordTablesVersion10 + indexes + traceIndexesVersion10)

    /// The fingerprint of version 6's tables (before `sourceFileColumns`): a ledger that has it is migrated.
    static let version6Fingerprint = fingerprint(
        ownTables([], confirmations: confirmationsVersion10) + lifecycleVersion9 + recordTablesVersion10 + indexes + traceIndexesVersion10)

    /// The fingerprint of version 7's tables (before `findingAddedColumns` and `closeLossColumns`): a ledger that has
    /// it is migrated.
    static let version7Fingerprint = fingerprint(
        ownTables(sourceFileColumns, confirmations: confirmationsVersion10) + lifecycleVersion9 + recordTablesVersion10 + indexes
            + traceIndexesVersion10)

    /// The fingerprint of version 8's tables (before `factChunkColumns`): a ledger that has it is migrated.
    static let version8Fingerprint = fingerprint(
        ownTables(sourceFileColumns, finding: findingAddedColumns, closeLoss: closeLossColumns, confirmations: confirmationsVersion10)
            + lifecycleVersion9
            + recordTablesVersion10 + indexes + traceIndexesVersion10)

    /// Migrates a ledger of version 6 to 11 as that version declared its tables (inside the open's transaction):
    /// adds the columns of the versions since; nothing is dropped. Returns false (nothing done) for any other.
    static func migrate(_ database: SQLiteDatabase, version: Int64, fingerprint stored: String?) throws -> Bool {
        guard try migrateTo11(database, version: version, fingerprint: stored) || (version, stored) == (11, version11Fingerprint)
        else { return false }
        try addVersion12Lifecycle(database)
        return true
    }

    /// Migrates a ledger of version 6 to 10 to version 11's tables. Returns false (nothing done) for any other.
    private static func migrateTo11(_ database: SQLiteDatabase, version: Int64, fingerprint stored: String?) throws -> Bool {
        switch (version, stored) {
        case (6, version6Fingerprint?):
            for column in sourceFileColumns { try database.execute("ALTER TABLE source_file ADD COLUMN \(column)") }
            try addVersion8Columns(database)
            try addVersion9Columns(database)
            try addVersion10Columns(database)
            try addVersion11Columns(database)
        case (7, version7Fingerprint?):
            try addVersion8Columns(database)
            try addVersion9Columns(database)
            try addVersion10Columns(database)
            try addVersion11Columns(database)
        case (8, version8Fingerprint?):
            try addVersion9Columns(database)
            try addVersion10Columns(database)
            try addVersion11Columns(database)
        case (9, version9Fingerprint?):
            try addVersion10Columns(database)
            try addVersion11Columns(database)
        case (10, version10Fingerprint?):
            try database.execute("DROP TABLE finding_action")
            try addVersion11Columns(database)
        default:
            return false
        }
        return true
    }

    /// Adds `fact_chunk.checksum` and computes it for every chunk kept (they are trusted as they are: a ledger made
    /// before checksums could not tell damage).
    private static func addVersion9Columns(_ database: SQLiteDatabase) throws {
        for column in factChunkColumns { try database.execute("ALTER TABLE fact_chunk ADD COLUMN \(column)") }
        var sums: [(chunk: Int64, checksum: Int64)] = []
        let chunks = try database.prepare("SELECT chunk_id, file_id, stream, part, data FROM fact_chunk")
        while try chunks.step() {
            sums.append(
                (
                    chunks.int64(0),
                    FactChecksum.chunk(chunks.blob(4), fileId: chunks.int64(1), stream: chunks.int64(2), part: chunks.int64(3))
                ))
        }
        let update = try database.prepare("UPDATE fact_chunk SET checksum = ?2 WHERE chunk_id = ?1")
        for sum in sums { try update.run([sum.chunk, sum.checksum]) }
    }

    /// Adds `finding.facts`, `finding_state.acknowledged_by` and table `finding_action` (filled by the next run).
    private static func addVersion10Columns(_ database: SQLiteDatabase) throws {
        for column in findingFactsColumns { try database.execute("ALTER TABLE finding ADD COLUMN \(column)") }
        for column in findingStateAddedColumns { try database.execute("ALTER TABLE finding_state ADD COLUMN \(column)") }
        try database.execute(actionTable)
    }

    /// Adds `apple_record.asked_transaction_id`; `manual_action` and `finding_action` (its codes with `refuse`) are made by
    /// the open, as every table is.
    /// `finding` is made again with `apple_confirmation` allowing `not_found`, its rows kept (SQLite cannot change a CHECK).
    private static func addVersion11Columns(_ database: SQLiteDatabase) throws {
        for column in appleRecordAddedColumns { try database.execute("ALTER TABLE apple_record ADD COLUMN \(column)") }
        let columns = try database.prepare("SELECT name FROM pragma_table_info('finding') ORDER BY cid")
        var names: [String] = []
        while try columns.step() { names.append("\"\(columns.text(0))\"") }
        try database.execute("ALTER TABLE finding RENAME TO finding_before_11")
        try database.execute(
            findingTable(findingAddedColumns + findingFactsColumns, confirmations: AppleConfirmation.allCases.map(\.rawValue)))
        let list = names.joined(separator: ", ")
        try database.execute("INSERT INTO finding (\(list)) SELECT \(list) FROM finding_before_11; DROP TABLE finding_before_11")
    }

    /// Version 12's lifecycle: `finding_state.status` and `finding_history.event` allow `expired`, `audit_run` counts them
    /// (`expired`, 0 in the runs before). The two tables are made again with their rows (SQLite cannot change a CHECK);
    /// their indexes and triggers go with the old ones and are made again by the open. Does nothing to tables that allow it
    /// already, or to a ledger without a lifecycle.
    static func addVersion12Lifecycle(_ database: SQLiteDatabase) throws {
        guard let state = try tableSQL("finding_state", database), !state.contains("'expired'") else { return }
        try database.execute(dropViews)
        let runColumns = try columnNames("audit_run", database)
        if !runColumns.isEmpty && !runColumns.contains("\"expired\"") {
            try database.execute("ALTER TABLE audit_run ADD COLUMN expired INTEGER NOT NULL DEFAULT 0")
        }
        try database.execute(
            """
            DROP INDEX IF EXISTS finding_state_status; DROP INDEX IF EXISTS finding_state_transaction;
            DROP INDEX IF EXISTS finding_history_finding; DROP INDEX IF EXISTS finding_history_run;
            DROP TRIGGER IF EXISTS finding_history_no_update; DROP TRIGGER IF EXISTS finding_history_no_delete;
            ALTER TABLE finding_state RENAME TO finding_state_before_12;
            ALTER TABLE finding_history RENAME TO finding_history_before_12;
            """)
        try database.execute(LifecycleTables.create)
        for table in ["finding_state", "finding_history"] {
            let list = try columnNames(table + "_before_12", database).joined(separator: ", ")
            try database.execute("INSERT INTO \(table) (\(list)) SELECT \(list) FROM \(table)_before_12; DROP TABLE \(table)_before_12")
        }
    }

    /// A table's CREATE statement; nil when there is no such table. (Read in a function of its own: its statement is done
    /// with when it returns, as the ALTERs that follow need.)
    private static func tableSQL(_ table: String, _ database: SQLiteDatabase) throws -> String? {
        let q = try database.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = '\(table)'")
        return try q.step() ? q.text(0) : nil
    }

    /// A table's columns, quoted, in order (none: no such table).
    private static func columnNames(_ table: String, _ database: SQLiteDatabase) throws -> [String] {
        let columns = try database.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
        var names: [String] = []
        while try columns.step() { names.append("\"\(columns.text(0))\"") }
        return names
    }

    private static func addVersion8Columns(_ database: SQLiteDatabase) throws {
        for column in findingAddedColumns { try database.execute("ALTER TABLE finding ADD COLUMN \(column)") }
        for column in closeLossColumns { try database.execute("ALTER TABLE close_loss ADD COLUMN \(column)") }
    }
}

/// What opening did to a ledger made by another version of iap-audit.
package enum SchemaChange: Equatable, Sendable {
    /// Migrated in place from that schema version: every record kept, the later versions' columns added.
    case migrated(from: Int64)
    /// Of that schema version (an older one, or this one with its tables declared otherwise): its records were
    /// dropped (its lifecycle kept from version 5 on) and every file given is read again.
    case rebuilt(from: Int64)

    /// The change the ledger keeps (`ledger_schema` `schema_change`: `migrated 7`, `rebuilt 5`) until a run completes.
    init?(stored database: SQLiteDatabase) throws {
        let q = try database.prepare("SELECT value FROM ledger_schema WHERE name = 'schema_change'")
        guard try q.step() else { return nil }
        let words = q.text(0).split(separator: " ")
        guard words.count == 2, let version = Int64(words[1]) else { return nil }
        switch words[0] {
        case "migrated": self = .migrated(from: version)
        case "rebuilt": self = .rebuilt(from: version)
        default: return nil
        }
    }
}
