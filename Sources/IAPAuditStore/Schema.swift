import IAPAuditModel

/// The `audit.sqlite` schema (documented in docs/schema.md). Every table is STRICT.
///
/// Times are INTEGER milliseconds since 1970 UTC (`*_ms`) unless the column is TEXT ISO 8601 UTC.
/// Ids are TEXT, exactly as the source wrote them.
package enum Schema {
    package static let version = 12
    /// Bumped whenever a reader changes what it imports or the fact layout changes (`FactLayout`):
    /// files stored by another reader version are read again.
    package static let readerVersion = 12

    /// Versions 7 to 10 keep what a ledger of version 6 to 9 holds (`migrate`, Schema+Migration.swift): 7 adds
    /// `source_file`'s `given`, `mtime_ns`, `inode` and `content_sha256`, 8 the findings' `loss_at` and
    /// `loss_at_ms` and `close_loss.loss_at_ms`, 9 `fact_chunk.checksum` (computed for the chunks kept), 10 `finding.facts`,
    /// `finding_state.acknowledged_by` and table `finding_action`, 11 `apple_record.asked_transaction_id` and table
    /// `manual_action`, 12 the lifecycle's `expired` (status, event, `audit_run.expired`); since the ledger keeps the
    /// records of files no longer given, which could not be read again.
    ///
    /// Older databases are upgraded by dropping everything they hold: version 6 keeps the close's price list
    /// (`close_period.price_list`, `price_list_sha256`), units per sale, refunds and valued findings
    /// (`close_refund`, `close_loss`), version 5 adds the findings'
    /// lifecycle (`LifecycleTables`), version 4 names Apple's records `apple_record` / `apple_transaction`
    /// (3: `verify_response` / `receipt_transaction`), version 3 keys records by `file_id << 32 | line` and
    /// keeps facts beside them; so every file given is read again by the next run (nothing is misread; the
    /// records of files no longer given are lost). A ledger of version 5 on, or of this version whose record
    /// tables were declared otherwise (`keepingLifecycle`), keeps its lifecycle: the runs and the findings'
    /// history are not in the inputs.
    static func upgradeFromOlder(_ database: SQLiteDatabase, keepingLifecycle: Bool = false) throws {
        var objects: [(type: String, name: String)] = []
        let list = try database.prepare("SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%'")
        while try list.step() {
            if keepingLifecycle && LifecycleTables.names.contains(list.text(1)) { continue }
            objects.append((list.text(0), list.text(1)))
        }
        // Views first: a view names tables.
        for o in objects.sorted(by: { $0.type > $1.type }) { try database.execute("DROP \(o.type.uppercased()) IF EXISTS \"\(o.name)\"") }
        // A kept lifecycle of version 5 to 9 lacks the columns version 10 added to `finding_state`.
        if keepingLifecycle, try database.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'finding_state'") > 0 {
            let columns = try database.prepare("SELECT name FROM pragma_table_info('finding_state')")
            var have = Set<String>()
            while try columns.step() { have.insert(columns.text(0)) }
            for column in findingStateAddedColumns where !have.contains(String(column.prefix { $0 != " " })) {
                try database.execute("ALTER TABLE finding_state ADD COLUMN \(column)")
            }
            // …and version 12's `expired`.
            try addVersion12Lifecycle(database)
        }
    }

    /// The tables' declaration as a hash (FNV-1a of their DDL and indexes): stored in `ledger_schema`, so
    /// that a ledger whose tables were declared otherwise (a field added to a record declaration) is
    /// dropped and read again rather than written with columns it lacks.
    static let tablesFingerprint: String = fingerprint(tables + indexes + traceIndexes)

    /// The fingerprint a ledger was made with; nil when it has none (made before fingerprints).
    static func storedFingerprint(_ database: SQLiteDatabase) throws -> String? {
        guard try database.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'ledger_schema'") > 0
        else { return nil }
        let query = try database.prepare("SELECT value FROM ledger_schema WHERE name = 'tables'")
        return try query.step() ? query.text(0) : nil
    }

    /// The record tables (`RecordTables`, generated from Sources/LedgerDeclarations) and the others.
    static var tables: String {
        ownTables(
            sourceFileColumns, finding: findingAddedColumns + findingFactsColumns, closeLoss: closeLossColumns, factChunk: factChunkColumns)
            + actionTable + LifecycleTables.create + RecordTables.create
    }

    /// What to do about each finding of the last run (`FindingAction`), one row per `finding.finding_id`, joined with
    /// its lifecycle: an acknowledged or resolved finding's `code` is `none`, `open_code` what it called for.
    /// `amount_milliunits` of `currency`: Apple's price of the transaction, from a verified signed transaction.
    static let actionTable = actionTable(codes: FindingActionCode.allCases.map(\.rawValue))

    /// `finding_action` whose `code` is one of `codes` (version 10's lacked `refuse`).
    static func actionTable(codes: [String]) -> String {
        """
        CREATE TABLE IF NOT EXISTS finding_action (
            finding_id TEXT PRIMARY KEY,
            code TEXT NOT NULL CHECK (code IN (\(codes.map { "'\($0)'" }.joined(separator: ", ")))),
            user_id TEXT,
            product_id TEXT,
            quantity INTEGER,
            amount_milliunits INTEGER,
            currency TEXT,
            transaction_id TEXT NOT NULL,
            because TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
            open_code TEXT,
            note TEXT,
            acknowledged_by TEXT,
            acknowledged_at TEXT,
            request_ids TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        """
    }

    /// FNV-1a of `text`, hex.
    static func fingerprint(_ text: String) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }

    /// The tables but the lifecycle's and the records', `source_file` with the columns `added`.
    /// `confirmations`: the `finding.apple_confirmation` values it allows (versions 6 to 10 lacked `not_found`).
    static func ownTables(
        _ added: [String], finding: [String] = [], closeLoss: [String] = [], factChunk: [String] = [],
        confirmations: [String] = AppleConfirmation.allCases.map(\.rawValue)
    ) -> String {
        [
            fileTables(added, factChunk: factChunk), findingTable(finding, confirmations: confirmations) + runTables,
            closeTables(closeLoss: closeLoss),
        ].joined(separator: "\n")
    }

    /// `source_file` with the columns `added`, `rejection`, and `fact_chunk` with the columns `factChunk`.
    private static func fileTables(_ added: [String], factChunk: [String]) -> String {
        """
        CREATE TABLE IF NOT EXISTS source_file (
            file_id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            sha256 TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            kind TEXT NOT NULL,
            format TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('imported', 'skipped', 'rejected')),
            note TEXT NOT NULL,
            reader_version INTEGER NOT NULL,
            records_in INTEGER NOT NULL,
            records_imported INTEGER NOT NULL,
            records_rejected INTEGER NOT NULL,\(added.map { "\n    " + $0 + "," }.joined())
            CHECK (records_in = records_imported + records_rejected)
        ) STRICT;
        CREATE TABLE IF NOT EXISTS rejection (
            file_id INTEGER NOT NULL,
            line INTEGER NOT NULL,
            reason TEXT NOT NULL,
            raw_text TEXT NOT NULL,
            PRIMARY KEY (file_id, line)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS fact_chunk (
            chunk_id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL,
            stream INTEGER NOT NULL,
            part INTEGER NOT NULL,
            data BLOB NOT NULL\(factChunk.map { ",\n    " + $0 }.joined())
        ) STRICT;
        CREATE INDEX IF NOT EXISTS fact_chunk_part ON fact_chunk (stream, part);
        CREATE INDEX IF NOT EXISTS fact_chunk_file ON fact_chunk (file_id);
        """
    }

    /// `finding` with the columns `finding`, its `apple_confirmation` one of `confirmations`.
    static func findingTable(_ finding: [String], confirmations: [String]) -> String {
        """
        CREATE TABLE IF NOT EXISTS finding (
            finding_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            severity TEXT NOT NULL CHECK (severity IN ('error', 'warning', 'info')),
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT,
            product_id TEXT,
            user_ids TEXT NOT NULL,
            environment TEXT,
            first_seen TEXT,
            first_seen_ms INTEGER,
            evidence TEXT NOT NULL,
            detail TEXT NOT NULL,
            apple_confirmation TEXT CHECK (apple_confirmation IN (\(confirmations.map { "'\($0)'" }.joined(separator: ", "))))\(finding.map { ",\n    " + $0 }.joined())
        ) STRICT;

        """
    }

    /// The run's parameters and warnings, `ledger_schema`, `verify_status_code`.
    private static let runTables = """
        CREATE TABLE IF NOT EXISTS run_parameter (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        CREATE TABLE IF NOT EXISTS run_warning (code TEXT NOT NULL, message TEXT NOT NULL, file TEXT) STRICT;
        CREATE TABLE IF NOT EXISTS ledger_schema (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        CREATE TABLE IF NOT EXISTS verify_status_code (status INTEGER PRIMARY KEY, meaning TEXT NOT NULL) STRICT;
        """

    /// The close's tables (`AuditStore.replaceClose`), `close_loss` with the columns `closeLoss`.
    private static func closeTables(closeLoss: [String]) -> String {
        """
        CREATE TABLE IF NOT EXISTS close_period (
            period TEXT PRIMARY KEY, calendar TEXT NOT NULL, time_zone TEXT NOT NULL, first_day TEXT NOT NULL, last_day TEXT NOT NULL,
            start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, fiscal_months TEXT NOT NULL, price_list TEXT, price_list_sha256 TEXT
        ) STRICT;
        CREATE TABLE IF NOT EXISTS close_sale (
            period TEXT NOT NULL, purchase_key TEXT NOT NULL, transaction_ids TEXT NOT NULL, product_id TEXT, purchase_ms INTEGER,
            country_code TEXT, amount_milliunits INTEGER, currency TEXT, pricing TEXT NOT NULL, sale_class TEXT NOT NULL, exclusion TEXT,
            is_trial INTEGER NOT NULL, refunded_milliunits INTEGER NOT NULL, evidence TEXT NOT NULL, units INTEGER NOT NULL,
            PRIMARY KEY (period, purchase_key)
        ) STRICT;
        CREATE TABLE IF NOT EXISTS close_refund (
            period TEXT NOT NULL, purchase_key TEXT NOT NULL, transaction_ids TEXT NOT NULL, product_id TEXT, purchase_ms INTEGER,
            refunded_ms INTEGER NOT NULL, amount_milliunits INTEGER, currency TEXT, pricing TEXT NOT NULL, evidence TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS close_refund_period ON close_refund (period);
        CREATE TABLE IF NOT EXISTS close_loss (
            period TEXT NOT NULL, kind TEXT NOT NULL, transaction_id TEXT NOT NULL, reason TEXT NOT NULL, label TEXT NOT NULL,
            amount_milliunits INTEGER, currency TEXT, pricing TEXT NOT NULL, first_seen_ms INTEGER\(closeLoss.map { ", " + $0 }.joined())
        ) STRICT;
        CREATE INDEX IF NOT EXISTS close_loss_period ON close_loss (period);
        CREATE TABLE IF NOT EXISTS close_bridge (
            period TEXT NOT NULL, report TEXT NOT NULL, product_id TEXT NOT NULL, currency TEXT NOT NULL,
            ledger_units INTEGER NOT NULL, ledger_milliunits INTEGER NOT NULL, apple_units INTEGER NOT NULL, apple_milliunits INTEGER NOT NULL,
            variance_units INTEGER NOT NULL, variance_milliunits INTEGER NOT NULL,
            excluded_units INTEGER NOT NULL, excluded_milliunits INTEGER NOT NULL,
            trials_units INTEGER NOT NULL, trials_milliunits INTEGER NOT NULL,
            not_proven_paid_units INTEGER NOT NULL, not_proven_paid_milliunits INTEGER NOT NULL,
            timing_timezone_units INTEGER NOT NULL, timing_timezone_milliunits INTEGER NOT NULL,
            timing_fiscal_units INTEGER NOT NULL, timing_fiscal_milliunits INTEGER NOT NULL,
            refunds_units INTEGER NOT NULL, refunds_milliunits INTEGER NOT NULL,
            commission_tax_units INTEGER NOT NULL, commission_tax_milliunits INTEGER NOT NULL,
            estimated_prices_units INTEGER NOT NULL, estimated_prices_milliunits INTEGER NOT NULL,
            remainder_units INTEGER NOT NULL, remainder_milliunits INTEGER NOT NULL, countries TEXT NOT NULL, remainder_sales TEXT NOT NULL,
            PRIMARY KEY (period, report, product_id, currency)
        ) STRICT;
        CREATE TABLE IF NOT EXISTS close_total (
            period TEXT NOT NULL, currency TEXT NOT NULL, measure TEXT NOT NULL, value INTEGER NOT NULL,
            PRIMARY KEY (period, currency, measure)
        ) STRICT;
        """
    }

    /// The statements that delete every row read from file `?1` (records are keyed by
    /// `file_id << 32 | line`, so each is a key range).
    /// `ledger_schema`'s count of the times a stored file's rows were deleted (read again or removed).
    static let filesDeletedKey = "files_deleted"
    /// `ledger_schema`'s generation of the carry and the digest of the files it was made for (`AuditStore.advanceCarryGeneration`).
    static let carryGenerationKey = "carry_generation"
    static let carryFilesKey = "carry_files"

    static let deleteFileRows =
        RecordTables.deleteFileRows + [
            "DELETE FROM rejection WHERE file_id = ?1",
            "DELETE FROM fact_chunk WHERE file_id = ?1",
            "DELETE FROM source_file WHERE file_id = ?1",
        ]

    /// Secondary indexes, dropped before a bulk import and made again after it (building an index
    /// once over sorted data is faster than keeping it up to date row by row).
    static let indexNames =
        [
            "client_report_transaction", "server_request_request", "apple_record_request", "apple_transaction_id",
            "apple_record_notification",
        ] + traceIndexNames

    static var dropIndexes: String { indexNames.map { "DROP INDEX IF EXISTS \($0);" }.joined(separator: "\n") }

    /// `trace`'s indexes, one per kind of id it looks up beyond the run's own (docs/schema.md, Indexes).
    /// Built by the first `trace` of a ledger (`TraceReader.buildIndexes`), not by `run`: their build would
    /// add about a fifth to a run (measured); a run that changes the ledger drops them
    /// (`AuditStore.dropTraceIndexes`), so no import maintains them row by row.
    package static let traceIndexNames = [
        "client_report_user", "client_report_device", "client_report_original", "server_request_user", "server_request_device",
        "server_request_ids", "apple_transaction_original", "apple_transaction_line_item", "apple_record_order",
        "client_report_product",
    ]

    static var dropTraceIndexes: String { traceIndexNames.map { "DROP INDEX IF EXISTS \($0);" }.joined(separator: "\n") }

    static let traceIndexes = """
        CREATE INDEX IF NOT EXISTS client_report_user ON client_report (user_id) WHERE user_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS client_report_device ON client_report (device_id) WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS client_report_original ON client_report (original_transaction_id)
            WHERE original_transaction_id <> transaction_id;
        CREATE INDEX IF NOT EXISTS server_request_user ON server_request (user_id) WHERE user_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS server_request_device ON server_request (device_id) WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS server_request_ids ON server_request (transaction_ids);
        CREATE INDEX IF NOT EXISTS apple_transaction_original ON apple_transaction (original_transaction_id)
            WHERE original_transaction_id <> transaction_id;
        CREATE INDEX IF NOT EXISTS apple_transaction_line_item ON apple_transaction (web_order_line_item_id)
            WHERE web_order_line_item_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS apple_record_order ON apple_record (order_id) WHERE order_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS client_report_product ON client_report (product_id, transaction_id) WHERE product_id IS NOT NULL;
        """

    static let indexes = """
        CREATE INDEX IF NOT EXISTS client_report_transaction ON client_report (transaction_id);
        CREATE INDEX IF NOT EXISTS server_request_request ON server_request (request_id);
        CREATE INDEX IF NOT EXISTS apple_record_request ON apple_record (request_id);
        CREATE INDEX IF NOT EXISTS apple_transaction_id ON apple_transaction (transaction_id);
        CREATE INDEX IF NOT EXISTS apple_record_notification ON apple_record (notification_uuid)
            WHERE notification_uuid IS NOT NULL;
        CREATE INDEX IF NOT EXISTS finding_kind ON finding (kind, reason);
        CREATE INDEX IF NOT EXISTS finding_transaction ON finding (transaction_id);
        CREATE INDEX IF NOT EXISTS finding_original ON finding (original_transaction_id);
        CREATE UNIQUE INDEX IF NOT EXISTS finding_stable_id ON finding (finding_id);
        """
}
