import Foundation
import IAPAuditModel

/// The audit database (`audit.sqlite`): the imported files and every record read from them
/// (the ledger), the rejections, and the findings of the last reconciliation.
///
/// Each file is imported in its own transaction (or savepoint, inside a group of small files: see
/// `beginGroup`) and the findings are replaced in one transaction, so a killed run leaves a
/// consistent database and the next run completes it.
public final class AuditStore {
    let database: SQLiteDatabase
    /// What opening did to a ledger of another schema (nil: none, or a new ledger): said by the run (`ledger_upgraded`).
    package private(set) var schemaChange: SchemaChange?

    /// Opens or creates the database at `path`. Throws `SQLiteError` (unwritable path, not a
    /// database, another program's database, or one of a newer schema version).
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        // 64 KB pages: bulk loads of millions of rows touch fewer pages (a new database only; an
        // existing one keeps its page size).
        try database.execute(
            "PRAGMA page_size = 65536; PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16384;")
        let version = try database.scalar("PRAGMA user_version")
        if version > Schema.version {
            throw SQLiteError(
                code: 0,
                message: "\(path) has schema version \(version); this iap-audit knows \(Schema.version) (made by a newer iap-audit)",
                sql: nil)
        }
        // Version 0 with tables: another program's database (ours sets its version with its tables).
        if version == 0, try database.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table'") > 0 {
            throw SQLiteError(
                code: 0, message: "another program's SQLite database (not iap-audit's); it is left as it is: choose another --out",
                sql: nil)
        }
        let upgraded = try database.transaction {
            // An older version, or this version's tables declared otherwise since (a field added to a
            // record: `Schema.tablesFingerprint`): dropped whole, every file read again by the next run.
            // Version 6 or 7 as it was declared gains the later versions' columns and keeps every record.
            let stored = version > 0 ? try Schema.storedFingerprint(database) : nil
            let migrating = try Schema.migrate(database, version: version, fingerprint: stored)
            let upgrading = version > 0 && !migrating && (version < Schema.version || stored != Schema.tablesFingerprint)
            if upgrading { try Schema.upgradeFromOlder(database, keepingLifecycle: version >= 5) }
            try database.execute(Schema.tables)
            // Updated in place (a replace would move the row: a re-run must leave the same database).
            try database.prepare(
                "INSERT INTO ledger_schema (name, value) VALUES ('tables', ?1) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
            ).run([Schema.tablesFingerprint])
            try database.execute(Schema.indexes)
            try database.execute(Schema.dropViews)
            try database.execute(Schema.views)
            try database.execute("PRAGMA user_version = \(Schema.version)")
            let insert = try database.prepare("INSERT OR REPLACE INTO verify_status_code (status, meaning) VALUES (?1, ?2)")
            for (code, meaning) in VerifyStatus.meanings { try insert.run([code, meaning]) }
            // Kept with the change until a run completes (`replaceFindings`): a run killed after this open leaves the next
            // one to say it (found by an on-call user test).
            if migrating || upgrading {
                try database.prepare(
                    "INSERT INTO ledger_schema (name, value) VALUES ('schema_change', ?1) "
                        + "ON CONFLICT (name) DO UPDATE SET value = excluded.value"
                ).run(["\(migrating ? "migrated" : "rebuilt") \(version)"])
            }
            // The periods closed before a migration, to close again: each leaves the list when closed again.
            if migrating {
                try database.execute(
                    "INSERT INTO ledger_schema (name, value) SELECT 'reclose', group_concat(period, ',') FROM "
                        + "(SELECT period FROM close_period ORDER BY period) HAVING count(*) > 0 "
                        + "ON CONFLICT (name) DO UPDATE SET value = excluded.value")
            }
            return upgrading
        }
        schemaChange = try SchemaChange(stored: database)
        // The dropped ledger's free pages could keep its text (older versions stored the app's shared secret
        // verbatim) where SQLite is built without SECURE_DELETE (Debian's has it): the file is rewritten
        // without them, and shrinks.
        if upgraded { try database.execute("VACUUM") }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws; inside
    /// another transaction a savepoint, undone alone. A group of small files is one transaction, each
    /// file's import a savepoint in it; a run killed inside loses the group, which the next run imports
    /// again.
    package func transaction<T>(_ body: () throws -> T) throws -> T { try database.transaction(body) }

    /// Lets other connections read while this one writes (WAL), for the stretch where reconciliation
    /// reads the facts and the indexes are built at once; `endConcurrentReads` goes back to a rollback
    /// journal (one file at rest). A run killed in between leaves a WAL that the next open replays.
    package func beginConcurrentReads() throws { try database.execute("PRAGMA journal_mode = WAL") }

    package func endConcurrentReads() throws { try database.execute("PRAGMA journal_mode = DELETE") }

    /// A second, read-only connection to this database, for reconciliation's facts.
    package func factReader() throws -> FactSource { try StoreFactSource(try SQLiteDatabase(path: database.path, readOnly: true)) }

    /// Drops the secondary indexes before a bulk import (`endBulkImport` makes them again; a run killed
    /// in between gets them back when the store is next opened).
    package func beginBulkImport() throws { try dropping(Schema.dropIndexes) }

    package func endBulkImport() throws { try database.execute(Schema.indexes) }

    /// Pages of SQLite's cache while a few files are added to a large ledger (the secondary indexes kept up to
    /// date row by row: their pages are touched at random), in KiB; the default is 16 MiB.
    package static let incrementCacheKiB = 131_072

    /// Sets the connection's page cache to `kibibytes` (`PRAGMA cache_size`; memory is taken as pages are read).
    package func setCache(kibibytes: Int) throws { try database.execute("PRAGMA cache_size = -\(kibibytes)") }

    /// Drops `trace`'s indexes before a run changes the ledger (the next `trace` builds them again), so
    /// neither the run's index build nor its row-by-row inserts pay for them.
    package func dropTraceIndexes() throws { try dropping(Schema.dropTraceIndexes) }

    /// Runs `drops` (DROP INDEX) without zeroing the freed pages, as Debian's SQLite (SECURE_DELETE) would: 21 s
    /// for four indexes of a 1M ledger instead of 0.06 s. An index holds nothing its table's rows do not.
    private func dropping(_ drops: String) throws {
        try database.execute("PRAGMA secure_delete = FAST")
        defer { try? database.execute("PRAGMA secure_delete = ON") }
        try database.execute(drops)
    }

    /// Whether the file stored under `path` has a rejected line at `line` or after.
    package func hasRejections(path: String, fromLine line: Int) throws -> Bool {
        let q = try database.prepare(
            "SELECT 1 FROM rejection r JOIN source_file f USING (file_id) WHERE f.path = ?1 AND r.line >= ?2 LIMIT 1")
        q.bind([path, line])
        return try q.step()
    }

    /// The rejected lines of the file stored under `path`: its line number and text, one string each.
    package func rejectedLines(path: String) throws -> Set<String> {
        let q = try database.prepare("SELECT r.line, r.raw_text FROM rejection r JOIN source_file f USING (file_id) WHERE f.path = ?1")
        q.bind([path])
        var lines = Set<String>()
        while try q.step() { lines.insert("\(q.int64(0))\t\(q.text(1))") }
        return lines
    }

    /// Files already in the ledger, by path. Throws `LedgerDamage` for a current `source_file` row whose counts no run writes
    /// (negative, over 2^32 lines, or `records_in` not imported + rejected: SQLite checks a CHECK when a row is written,
    /// not when it is read), which the reports and the import would add up.
    public func storedFiles() throws -> [String: StoredFile] {
        let damaged = try database.prepare(
            """
            SELECT file_id, path FROM source_file
            WHERE reader_version = ?1
              AND (records_imported NOT BETWEEN 0 AND 4294967296 OR records_rejected NOT BETWEEN 0 AND 4294967296
                   OR records_in <> records_imported + records_rejected OR bytes < 0 OR file_id NOT BETWEEN 1 AND 4294967295)
            LIMIT 1
            """)
        // A file marked to be read again (another reader version) is read again or dropped before its counts are used.
        damaged.bind([Schema.readerVersion])
        if try damaged.step() {
            throw LedgerDamage(
                table: "source_file", row: damaged.int64(0), fileId: damaged.int64(0), path: damaged.text(1),
                why: "holds counts no run writes")
        }
        let statement = try database.prepare(
            """
            SELECT path, sha256, note, reader_version, status, bytes, records_imported, records_rejected, given, mtime_ns, inode,
                coalesce(content_sha256, sha256), format
            FROM source_file
            """)
        var result: [String: StoredFile] = [:]
        while try statement.step() {
            var file = StoredFile(
                sha256: statement.text(1), note: statement.text(2), status: statement.text(4),
                isCurrentReader: statement.int64(3) == Schema.readerVersion, bytes: Int(statement.int64(5)),
                recordsImported: statement.int64(6), recordsRejected: statement.int64(7))
            file.given = statement.int64(8) != 0
            file.stamp = FileStamp(bytes: Int64(file.bytes), modifiedNs: statement.int64(9), inode: statement.int64(10))
            file.contentSha256 = statement.text(11)
            file.format = statement.text(12)
            result[statement.text(0)] = file
        }
        return result
    }

    /// Records what the ledger knows of the file stored under `path` besides its records: its `stat(2)`
    /// (`stamp`; the next run does not hash it again while it matches), the SHA-256 of its content (a gzip
    /// file's inflated bytes; nil: its `sha256`), and that this run was given it (`given`).
    package func markFile(path: String, stamp: FileStamp?, contentSha256: String?) throws {
        try database.prepare(
            "UPDATE source_file SET given = 1, mtime_ns = ?2, inode = ?3, content_sha256 = coalesce(?4, content_sha256) WHERE path = ?1"
        ).run([path, stamp?.modifiedNs ?? 0, stamp?.inode ?? 0, contentSha256])
    }

    /// Renames the file stored under `old` to `new` (the same file given under another path), with the last
    /// recorded run's input of it: its records, facts and lifecycle stay as they are.
    package func renameFile(from old: String, to new: String) throws {
        try database.transaction {
            try database.prepare("UPDATE source_file SET path = ?2 WHERE path = ?1").run([old, new])
            // A recorded input under the new path (a skipped file that made way for a rotated log) is that path's no more.
            try database.prepare("UPDATE OR REPLACE run_input SET path = ?2 WHERE path = ?1").run([old, new])
        }
    }

    /// Marks the files stored under `paths` as not given by this run: kept, with their records.
    package func markMissing(_ paths: [String]) throws {
        let update = try database.prepare("UPDATE source_file SET given = 0 WHERE path = ?1")
        try database.transaction { for path in paths { try update.run([path]) } }
    }

    /// Removes a file and every record read from it.
    public func removeFile(path: String) throws {
        try database.transaction { try deleteFile(path: path) }
    }

    /// Deletes the file stored under `path` and every row read from it (inside the caller's transaction).
    private func deleteFile(path: String) throws {
        let find = try database.prepare("SELECT file_id FROM source_file WHERE path = ?1")
        find.bind([path])
        guard try find.step() else { return }
        let fileId = find.int64(0)
        for sql in Schema.deleteFileRows { try database.prepare(sql).run([fileId]) }
        // Counted: the ids of the rows deleted can be given again (the newest file's, read again), so what was made
        // from the ledger's facts (`RequestCarry`) is checked by this count too.
        try database.prepare(
            """
            INSERT INTO ledger_schema (name, value) VALUES ('\(Schema.filesDeletedKey)', '1')
            ON CONFLICT (name) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
            """
        ).run([])
    }

    /// Imports one file in one transaction, replacing an earlier import of the same path: `read` is
    /// given a sink for records streamed batch by batch and returns the file's result (with any records
    /// not streamed). When `keep` says the result equals what is stored already, nothing changes; else `then`
    /// runs last in the transaction (what the caller notes of the file goes in with it).
    /// Returns the result, or nil when kept.
    package func importStreaming(
        path: String, metrics: ImportMetrics = ImportMetrics(), progress: ((Int, Int) -> Void)? = nil,
        read: (RecordSink) throws -> ImportedFile,
        keep: (ImportedFile) -> Bool, then: () throws -> Void = {}
    ) throws -> ImportedFile? {
        struct Unchanged: Error {}
        do {
            return try database.transaction {
                try deleteFile(path: path)
                try database.prepare(
                    """
                    INSERT INTO source_file (path, sha256, bytes, kind, format, status, note, reader_version, records_in,
                        records_imported, records_rejected)
                    VALUES (?1, '', 0, 'other', 'none', 'imported', '', ?2, 0, 0, 0)
                    """
                ).run([path, Schema.readerVersion])
                let fileId = try database.scalar("SELECT last_insert_rowid()")
                let writer = try RecordWriter(database: database, fileId: fileId)
                let file = try Self.stream(into: writer, metrics: metrics, progress: progress, read: read)
                if keep(file) { throw Unchanged() }
                try writer.finish()
                try database.prepare(
                    """
                    UPDATE source_file SET sha256 = ?2, bytes = ?3, kind = ?4, format = ?5, status = ?6, note = ?7,
                        records_in = ?8, records_imported = ?9, records_rejected = ?10
                    WHERE file_id = ?1
                    """
                ).run([
                    fileId, file.sha256, file.bytes, file.kind.rawValue, file.format.rawValue, file.status.rawValue, file.note,
                    file.recordsIn, file.recordsImported, file.recordsRejected,
                ])
                try then()
                return file
            }
        } catch is Unchanged {
            return nil
        }
    }

    /// Stores a file that holds no records (skipped, or a copy of another), replacing an earlier import
    /// of the same path, in one transaction.
    package func store(_ file: ImportedFile) throws {
        precondition(file.recordsIn == 0, "a file with records is stored by importStreaming")
        try database.transaction {
            try deleteFile(path: file.path)
            try database.prepare(
                """
                INSERT INTO source_file (path, sha256, bytes, kind, format, status, note, reader_version, records_in,
                    records_imported, records_rejected)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """
            ).run([
                file.path, file.sha256, file.bytes, file.kind.rawValue, file.format.rawValue, file.status.rawValue,
                file.note, Schema.readerVersion, file.recordsIn, file.recordsImported, file.recordsRejected,
            ])
            let fileId = try database.scalar("SELECT last_insert_rowid()")
            try RecordWriter(database: database, fileId: fileId).finish()
        }
    }

    /// One parameter of the last run (table `run_parameter`), or nil.
    public func runParameter(_ name: String) throws -> String? {
        let statement = try database.prepare("SELECT value FROM run_parameter WHERE name = ?1")
        statement.bind([name])
        return try statement.step() ? statement.text(0) : nil
    }

    /// Sets one run parameter on its own (e.g. `run_status = incomplete` when a run starts).
    public func setRunParameter(_ name: String, _ value: String) throws {
        try database.transaction {
            try database.prepare("INSERT OR REPLACE INTO run_parameter (name, value) VALUES (?1, ?2)").run([name, value])
        }
    }

    /// Replaces the findings (given one by one, in table order; each stored with its stable id, `FindingIds`),
    /// the run parameters and the run's warnings (table `run_warning`, in the order given), and records the
    /// run's lifecycle when given (else, when given, the files of a re-run: `runInputs`), in one transaction.
    /// Each finding's action (`FindingAction.of`, priced from `prices`: Apple's price by transaction id) goes in
    /// `finding_action`, joined with the lifecycle once it is recorded (`joinActionsWithLifecycle`).
    package func replaceFindings(
        _ findings: ((Finding) throws -> Void) throws -> Void, parameters: [String: String], warnings: [RunWarning] = [],
        lifecycle: LifecycleRecord? = nil, runInputs: [(path: String, sha256: String)]? = nil, prices: [String: Money] = [:]
    ) throws {
        try database.transaction {
            // A completed run said the ledger's upgrade: not again.
            try database.execute(
                "DELETE FROM finding; DELETE FROM finding_action; DELETE FROM run_parameter; DELETE FROM run_warning; DELETE FROM ledger_schema WHERE name IN ('schema_change', 'reclose');"
            )
            let insert = try database.prepare(
                """
                INSERT INTO finding (kind, reason, severity, transaction_id, original_transaction_id, product_id, user_ids,
                    environment, first_seen, first_seen_ms, evidence, detail, apple_confirmation, finding_id, loss_at, loss_at_ms, facts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
                """)
            let action = try database.prepare(Self.actionInsert)
            var ids = FindingIds()
            try findings { f in
                insert.resetForRow()
                typealias C = FindingColumn
                let id = ids.id(for: f)
                insert.bind(C.findingId, constant: id)
                insert.bind(C.kind, constant: f.kind.rawValue)
                insert.bind(C.reason, constant: f.reason)
                insert.bind(C.severity, constant: f.severity.rawValue)
                insert.bind(C.transactionId, constant: f.transactionId)
                if let v = f.originalTransactionId { insert.bind(C.originalTransactionId, constant: v) }
                if let v = f.productId { insert.bind(C.productId, constant: v) }
                insert.bind(C.userIds, constant: IdList.encode(f.userIds))
                if let v = f.environment { insert.bind(C.environment, constant: v) }
                if let ms = f.firstSeenMs {
                    insert.bind(C.firstSeen, constant: Timestamp.iso(ms))
                    insert.bind(C.firstSeenMs, ms)
                }
                if let ms = f.lossAtMs {
                    insert.bind(C.lossAt, constant: Timestamp.iso(ms))
                    insert.bind(C.lossAtMs, ms)
                }
                insert.bind(C.evidence, constant: IdList.encode(f.evidence.map(\.description)))
                insert.bind(C.detail, constant: f.detail)
                if let v = f.appleConfirmation { insert.bind(C.appleConfirmation, constant: v.rawValue) }
                insert.bind(C.facts, constant: f.facts.json)
                try insert.insertRow()
                try action.run(Self.actionValues(id, FindingAction.of(f, price: prices[f.transactionId])))
            }
            let parameter = try database.prepare("INSERT INTO run_parameter (name, value) VALUES (?1, ?2)")
            for (name, value) in parameters.sorted(by: { $0.key < $1.key }) { try parameter.run([name, value]) }
            let warning = try database.prepare("INSERT INTO run_warning (code, message, file) VALUES (?1, ?2, ?3)")
            for w in warnings { try warning.run([w.code.rawValue, w.message, w.file]) }
            if let lifecycle {
                try record(lifecycle)
            } else if let runInputs {
                try replaceRunInputs(runInputs)
            }
            try joinActionsWithLifecycle()
        }
    }
}

/// What `stat(2)` says of a file, for the ledger's stat check (git's index does the same): a file of the
/// same size, modification time and inode as when it was stored is taken as unchanged, without hashing.
public struct FileStamp: Hashable, Sendable {
    /// Bytes.
    public var bytes: Int64
    /// Modification time, nanoseconds since 1970 UTC.
    public var modifiedNs: Int64
    public var inode: Int64

    package init(bytes: Int64, modifiedNs: Int64, inode: Int64) { (self.bytes, self.modifiedNs, self.inode) = (bytes, modifiedNs, inode) }

    /// Known (a stamp stored before version 7, or by a run that could not stat, is 0s: never matches).
    package var isKnown: Bool { modifiedNs != 0 || inode != 0 }
}

/// The parameters of `finding`'s INSERT, by column.
private enum FindingColumn: Int32 {
    case kind = 1, reason, severity, transactionId, originalTransactionId, productId, userIds, environment, firstSeen, firstSeenMs,
        evidence, detail, appleConfirmation, findingId, lossAt, lossAtMs, facts
}
