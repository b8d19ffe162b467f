/// The ledger's views (docs/schema.md, Views): made again at every open, so a changed view needs no migration.
extension Schema {
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
