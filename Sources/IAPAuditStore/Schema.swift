import IAPAuditModel

/// The `audit.sqlite` schema (documented in docs/schema.md). Every table is STRICT.
///
/// Times are INTEGER milliseconds since 1970 UTC (`*_ms`) unless the column is TEXT ISO 8601 UTC.
/// Ids are TEXT, exactly as the source wrote them.
package enum Schema {
    package static let version = 11
    /// Bumped whenever a reader changes what it imports or the fact layout changes (`FactLayout`):
    /// files stored by another reader version are read again.
    package static let readerVersion = 12

    /// Versions 7 to 10 keep what a ledger of version 6 to 9 holds (`migrate`, Schema+Migration.swift): 7 adds
    /// `source_file`'s `given`, `mtime_ns`, `inode` and `content_sha256`, 8 the findings' `loss_at` and
    /// `loss_at_ms` and `close_loss.loss_at_ms`, 9 `fact_chunk.checksum` (computed for the chunks kept), 10 `finding.facts`,
    /// `finding_state.acknowledged_by` and table `finding_action`; since the ledger keeps the records of files no longer
    /// given, which could not be read again.
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
            "apple_record_notification", "client_report_product",
        ] + traceIndexNames

    static var dropIndexes: String { indexNames.map { "DROP INDEX IF EXISTS \($0);" }.joined(separator: "\n") }

    /// `trace`'s indexes, one per kind of id it looks up beyond the run's own (docs/schema.md, Indexes).
    /// Built by the first `trace` of a ledger (`TraceReader.buildIndexes`), not by `run`: their build would
    /// add about a fifth to a run (measured); a run that changes the ledger drops them
    /// (`AuditStore.dropTraceIndexes`), so no import maintains them row by row.
    package static let traceIndexNames = [
        "client_report_user", "client_report_device", "client_report_original", "server_request_user", "server_request_device",
        "server_request_ids", "apple_transaction_original", "apple_transaction_line_item", "apple_record_order",
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
        """

    static let indexes = """
        CREATE INDEX IF NOT EXISTS client_report_transaction ON client_report (transaction_id);
        CREATE INDEX IF NOT EXISTS server_request_request ON server_request (request_id);
        CREATE INDEX IF NOT EXISTS apple_record_request ON apple_record (request_id);
        CREATE INDEX IF NOT EXISTS apple_transaction_id ON apple_transaction (transaction_id);
        CREATE INDEX IF NOT EXISTS apple_record_notification ON apple_record (notification_uuid)
            WHERE notification_uuid IS NOT NULL;
        CREATE INDEX IF NOT EXISTS client_report_product ON client_report (product_id, transaction_id) WHERE product_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS finding_kind ON finding (kind, reason);
        CREATE INDEX IF NOT EXISTS finding_transaction ON finding (transaction_id);
        CREATE INDEX IF NOT EXISTS finding_original ON finding (original_transaction_id);
        CREATE UNIQUE INDEX IF NOT EXISTS finding_stable_id ON finding (finding_id);
        """

    /// Every view, dropped before `views` makes them again (so a changed view needs no migration).
    static let viewNames = [
        "finding_by_kind_reason", "finding_by_day", "finding_by_product", "verify_status_distribution",
        "transaction_evidence", "latency_percentiles", "signature_summary", "notification_delivery",
    ]

    static var dropViews: String { viewNames.map { "DROP VIEW IF EXISTS \($0);" }.joined(separator: "\n") }

    /// A server request line as `transaction_evidence` shows it (`s`: the `server_request` row): its
    /// event and request id, whether it granted, restore, the logged status and environment. A granted
    /// request whose `credited_transaction_ids` holds none of `credited` (SQL expressions: the ids of the
    /// row's transaction) says so and lists what it credited (semantics.md rule 5: its grant set).
    private static func requestDetail(credited ids: String, otherwise: String) -> String {
        """
        s.event || ' ' || s.request_id || CASE WHEN s.granted IS NOT 1 THEN ', not granted'
                       WHEN s.credited_transaction_ids IS NULL
                         OR EXISTS (SELECT 1 FROM json_each(s.credited_transaction_ids) c WHERE c.value IN (\(ids)))
                       THEN ', granted'
                       ELSE ', granted but \(otherwise) (credited '
                         || coalesce((SELECT group_concat(c.value, ', ') FROM json_each(s.credited_transaction_ids) c), 'nothing')
                         || ')' END
                   || CASE s.restore WHEN 1 THEN ', restore' ELSE '' END
                   || coalesce(', logged status ' || s.verify_status, ', no status logged') || coalesce(', ' || s.environment, '')
        """
    }

    static let views = """
        CREATE VIEW finding_by_kind_reason AS
            SELECT kind, reason, severity, count(*) AS findings FROM finding GROUP BY kind, reason, severity;
        CREATE VIEW finding_by_day AS
            SELECT substr(first_seen, 1, 10) AS day, kind, count(*) AS findings FROM finding GROUP BY day, kind;
        CREATE VIEW finding_by_product AS
            SELECT product_id, kind, count(*) AS findings FROM finding GROUP BY product_id, kind;
        CREATE VIEW verify_status_distribution AS
            SELECT r.status, coalesce(c.meaning, CASE WHEN r.status BETWEEN 21100 AND 21199
                       THEN 'internal data access error' ELSE 'unknown status' END) AS meaning,
                   count(*) AS responses,
                   round(100.0 * count(*) / (SELECT count(*) FROM apple_record WHERE source = 'verify_receipt'), 2) AS percent
            FROM apple_record r LEFT JOIN verify_status_code c ON c.status = r.status
            WHERE r.source = 'verify_receipt'
            GROUP BY r.status;
        CREATE VIEW signature_summary AS
            SELECT source, signature, count(*) AS records FROM apple_record GROUP BY source, signature;
        CREATE VIEW notification_delivery AS
            SELECT notification_uuid, notification_type, notification_subtype, count(*) AS deliveries,
                   min(f.path || ':' || r.line) AS first_delivery
            FROM apple_record r JOIN source_file f USING (file_id)
            WHERE notification_uuid IS NOT NULL GROUP BY notification_uuid;
        CREATE VIEW transaction_evidence AS
            SELECT c.transaction_id, 'client_report' AS source, f.path AS file, c.line,
                   strftime('%Y-%m-%dT%H:%M:%fZ', c.ts_ms / 1000.0, 'unixepoch') AS time, c.user_id,
                   'state ' || c.state || coalesce(', error_code ' || c.error_code, '') || coalesce(', product ' || c.product_id, '') AS detail
            FROM client_report c JOIN source_file f USING (file_id) WHERE c.transaction_id IS NOT NULL
            UNION ALL
            SELECT j.value, 'server_request', f.path, s.line, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch'), s.user_id,
                   \(requestDetail(credited: "j.value", otherwise: "did not credit this id"))
            FROM server_request s JOIN source_file f USING (file_id), json_each(s.transaction_ids) j
            UNION ALL
            -- A request that carried the transaction's original id (a renewal credited through it), as an Apple
            -- record of the transaction lists it; once per request line, and not when it carried the id itself.
            -- The transaction's own listings come first (by index), then the requests holding the original id
            -- (instr before json_each, so only those lines are parsed).
            SELECT o.transaction_id, 'server_request', f.path, s.line,
                   strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch'), s.user_id,
                   \(requestDetail(
                       credited: "o.original_transaction_id, o.transaction_id", otherwise: "credited neither this id nor its original id"))
                   || ', carried its original id ' || o.original_transaction_id || ', not this transaction''s id'
            FROM (SELECT DISTINCT transaction_id, original_transaction_id FROM apple_transaction
                  WHERE original_transaction_id <> transaction_id) o
                 CROSS JOIN server_request s JOIN source_file f ON f.file_id = s.file_id
            WHERE instr(s.transaction_ids, '"' || o.original_transaction_id || '"') > 0
              AND EXISTS (SELECT 1 FROM json_each(s.transaction_ids) j WHERE j.value = o.original_transaction_id)
              AND NOT EXISTS (SELECT 1 FROM json_each(s.transaction_ids) j WHERE j.value = o.transaction_id)
            UNION ALL
            SELECT t.transaction_id, r.source, f.path, r.line,
                   strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(r.received_at_ms, r.signed_date_ms) / 1000.0, 'unixepoch'), NULL,
                   coalesce(r.notification_type || coalesce('/' || r.notification_subtype, '') || ', ', '')
                   || 'status ' || r.status || coalesce(', ' || coalesce(t.environment, r.environment), '')
                   || coalesce(', request ' || r.request_id, ', bare')
                   || ', in ' || t.sections || ', signature ' || t.signature
                   || coalesce(', cancelled ' || strftime('%Y-%m-%dT%H:%M:%fZ', t.cancellation_date_ms / 1000.0, 'unixepoch'), '')
                   || coalesce(' (' || t.revocation_type || coalesce(' ' || (t.revocation_percentage / 1000.0) || '%', '') || ')', '')
            FROM apple_transaction t JOIN apple_record r USING (record_id) JOIN source_file f ON f.file_id = r.file_id
            UNION ALL
            SELECT j.value, r.source, f.path, r.line,
                   strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(r.received_at_ms, r.signed_date_ms) / 1000.0, 'unixepoch'), s.user_id,
                   'answer to request ' || r.request_id || ': status ' || r.status || coalesce(', ' || r.environment, '')
                   || ', does not list this transaction'
            -- CROSS JOIN keeps this order (the transaction's requests first, then their answers by index).
            FROM server_request s CROSS JOIN json_each(s.transaction_ids) j
                 CROSS JOIN apple_record r ON r.request_id = s.request_id JOIN source_file f ON f.file_id = r.file_id
            -- Once per answer: from the request's first line carrying the transaction. (Both tests name r,
            -- so they run only for the transaction's own requests, after the view's filter on j.value.)
            WHERE NOT EXISTS (SELECT 1 FROM apple_transaction t WHERE t.record_id = r.record_id AND t.transaction_id = j.value)
              AND NOT EXISTS (SELECT 1 FROM server_request s2 JOIN json_each(s2.transaction_ids) j2
                              WHERE s2.request_id = r.request_id AND s2.record_id < s.record_id AND j2.value = j.value)
            UNION ALL
            SELECT g.transaction_id, 'finding', NULL, NULL, g.first_seen, u.value,
                   g.kind || '/' || g.reason || ': ' || g.detail
                   || coalesce('; evidence ' || (SELECT group_concat(e.value, ', ') FROM json_each(g.evidence) e), '')
            FROM finding g LEFT JOIN json_each(g.user_ids) u;
        CREATE VIEW latency_percentiles AS
            WITH l AS (
                SELECT latency_ms, row_number() OVER (ORDER BY latency_ms) AS rank, count(*) OVER () AS c
                FROM server_request WHERE event = 'verify' AND latency_ms IS NOT NULL)
            SELECT coalesce(max(c), 0) AS requests,
                max(CASE WHEN rank = max(1, (c * 50 + 99) / 100) THEN latency_ms END) AS p50_ms,
                max(CASE WHEN rank = max(1, (c * 90 + 99) / 100) THEN latency_ms END) AS p90_ms,
                max(CASE WHEN rank = max(1, (c * 95 + 99) / 100) THEN latency_ms END) AS p95_ms,
                max(CASE WHEN rank = max(1, (c * 99 + 99) / 100) THEN latency_ms END) AS p99_ms,
                max(latency_ms) AS max_ms
            FROM l;
        """
}
