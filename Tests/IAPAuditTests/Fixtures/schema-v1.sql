-- audit.sqlite schema version 1 (iap-audit 0.1.0), exactly as that version created it: the
-- starting point of the migration test. Not used by the product.
-- tables
PRAGMA foreign_keys = ON;
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
    records_rejected INTEGER NOT NULL,
    CHECK (records_in = records_imported + records_rejected)
) STRICT;
CREATE TABLE IF NOT EXISTS client_report (
    file_id INTEGER NOT NULL REFERENCES source_file ON DELETE CASCADE,
    line INTEGER NOT NULL,
    ts_ms INTEGER NOT NULL,
    user_id TEXT, device_id TEXT, transaction_id TEXT, original_transaction_id TEXT, product_id TEXT,
    state TEXT NOT NULL,
    error_code INTEGER, quantity INTEGER,
    PRIMARY KEY (file_id, line)
) STRICT;
CREATE TABLE IF NOT EXISTS server_request (
    file_id INTEGER NOT NULL REFERENCES source_file ON DELETE CASCADE,
    line INTEGER NOT NULL,
    ts_ms INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    event TEXT NOT NULL CHECK (event IN ('verify', 'revoke')),
    user_id TEXT, device_id TEXT,
    transaction_ids TEXT NOT NULL,
    credited_transaction_ids TEXT,
    restore INTEGER NOT NULL,
    receipt_sha256 TEXT,
    verify_status INTEGER,
    environment TEXT,
    granted INTEGER NOT NULL,
    latency_ms INTEGER,
    PRIMARY KEY (file_id, line)
) STRICT;
CREATE TABLE IF NOT EXISTS verify_response (
    response_id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES source_file ON DELETE CASCADE,
    line INTEGER NOT NULL,
    request_id TEXT,
    received_at_ms INTEGER,
    status INTEGER NOT NULL,
    environment TEXT,
    is_retryable INTEGER,
    bundle_id TEXT,
    receipt_type TEXT,
    raw_json TEXT NOT NULL,
    UNIQUE (file_id, line)
) STRICT;
CREATE TABLE IF NOT EXISTS receipt_transaction (
    response_id INTEGER NOT NULL REFERENCES verify_response ON DELETE CASCADE,
    transaction_id TEXT NOT NULL,
    original_transaction_id TEXT, product_id TEXT, quantity INTEGER,
    purchase_date_ms INTEGER, original_purchase_date_ms INTEGER, expires_date_ms INTEGER,
    cancellation_date_ms INTEGER, cancellation_reason TEXT, web_order_line_item_id TEXT,
    in_app_ownership_type TEXT, is_trial_period INTEGER,
    sections TEXT NOT NULL,
    PRIMARY KEY (response_id, transaction_id)
) STRICT;
CREATE TABLE IF NOT EXISTS pending_renewal (
    response_id INTEGER NOT NULL REFERENCES verify_response ON DELETE CASCADE,
    position INTEGER NOT NULL,
    original_transaction_id TEXT, product_id TEXT, auto_renew_product_id TEXT,
    auto_renew_status INTEGER, expiration_intent INTEGER, is_in_billing_retry_period INTEGER,
    grace_period_expires_date_ms INTEGER,
    PRIMARY KEY (response_id, position)
) STRICT;
CREATE TABLE IF NOT EXISTS rejection (
    file_id INTEGER NOT NULL REFERENCES source_file ON DELETE CASCADE,
    line INTEGER NOT NULL,
    reason TEXT NOT NULL,
    raw_text TEXT NOT NULL,
    PRIMARY KEY (file_id, line)
) STRICT;
CREATE TABLE IF NOT EXISTS finding (
    finding_id INTEGER PRIMARY KEY,
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
    detail TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS run_parameter (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS verify_status_code (status INTEGER PRIMARY KEY, meaning TEXT NOT NULL) STRICT;
-- indexes
CREATE INDEX IF NOT EXISTS client_report_transaction ON client_report (transaction_id);
CREATE INDEX IF NOT EXISTS server_request_request ON server_request (request_id);
CREATE INDEX IF NOT EXISTS verify_response_request ON verify_response (request_id);
CREATE INDEX IF NOT EXISTS verify_response_file ON verify_response (file_id);
CREATE INDEX IF NOT EXISTS receipt_transaction_id ON receipt_transaction (transaction_id);
CREATE INDEX IF NOT EXISTS finding_kind ON finding (kind, reason);
CREATE INDEX IF NOT EXISTS finding_transaction ON finding (transaction_id);
-- views
CREATE VIEW IF NOT EXISTS finding_by_kind_reason AS
    SELECT kind, reason, severity, count(*) AS findings FROM finding GROUP BY kind, reason, severity;
CREATE VIEW IF NOT EXISTS finding_by_day AS
    SELECT substr(first_seen, 1, 10) AS day, kind, count(*) AS findings FROM finding GROUP BY day, kind;
CREATE VIEW IF NOT EXISTS finding_by_product AS
    SELECT product_id, kind, count(*) AS findings FROM finding GROUP BY product_id, kind;
CREATE VIEW IF NOT EXISTS verify_status_distribution AS
    SELECT r.status, coalesce(c.meaning, CASE WHEN r.status BETWEEN 21100 AND 21199
               THEN 'internal data access error' ELSE 'unknown status' END) AS meaning,
           count(*) AS responses,
           round(100.0 * count(*) / (SELECT count(*) FROM verify_response), 2) AS percent
    FROM verify_response r LEFT JOIN verify_status_code c ON c.status = r.status
    GROUP BY r.status;
CREATE VIEW IF NOT EXISTS transaction_evidence AS
    SELECT c.transaction_id, 'client_report' AS source, f.path AS file, c.line,
           strftime('%Y-%m-%dT%H:%M:%fZ', c.ts_ms / 1000.0, 'unixepoch') AS time, c.user_id,
           'state ' || c.state || coalesce(', error_code ' || c.error_code, '') || coalesce(', product ' || c.product_id, '') AS detail
    FROM client_report c JOIN source_file f USING (file_id) WHERE c.transaction_id IS NOT NULL
    UNION ALL
    SELECT j.value, 'server_request', f.path, s.line, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch'), s.user_id,
           s.event || ' ' || s.request_id || CASE s.granted WHEN 1 THEN ', granted' ELSE ', not granted' END
           || CASE s.restore WHEN 1 THEN ', restore' ELSE '' END
           || coalesce(', logged status ' || s.verify_status, ', no status logged') || coalesce(', ' || s.environment, '')
    FROM server_request s JOIN source_file f USING (file_id), json_each(s.transaction_ids) j
    UNION ALL
    SELECT t.transaction_id, 'verify_response', f.path, r.line,
           strftime('%Y-%m-%dT%H:%M:%fZ', r.received_at_ms / 1000.0, 'unixepoch'), NULL,
           'status ' || r.status || coalesce(', ' || r.environment, '') || coalesce(', request ' || r.request_id, ', bare')
           || ', in ' || t.sections || coalesce(', cancelled ' || strftime('%Y-%m-%dT%H:%M:%fZ', t.cancellation_date_ms / 1000.0, 'unixepoch'), '')
    FROM receipt_transaction t JOIN verify_response r USING (response_id) JOIN source_file f ON f.file_id = r.file_id
    UNION ALL
    SELECT transaction_id, 'finding', NULL, NULL, first_seen, user_ids, kind || '/' || reason || ': ' || detail FROM finding;
CREATE VIEW IF NOT EXISTS latency_percentiles AS
    WITH l AS (SELECT latency_ms FROM server_request WHERE event = 'verify' AND latency_ms IS NOT NULL),
         n AS (SELECT count(*) AS c FROM l)
    SELECT (SELECT c FROM n) AS requests,
        (SELECT latency_ms FROM l ORDER BY latency_ms LIMIT 1 OFFSET (SELECT max(0, (c * 50 + 99) / 100 - 1) FROM n)) AS p50_ms,
        (SELECT latency_ms FROM l ORDER BY latency_ms LIMIT 1 OFFSET (SELECT max(0, (c * 90 + 99) / 100 - 1) FROM n)) AS p90_ms,
        (SELECT latency_ms FROM l ORDER BY latency_ms LIMIT 1 OFFSET (SELECT max(0, (c * 95 + 99) / 100 - 1) FROM n)) AS p95_ms,
        (SELECT latency_ms FROM l ORDER BY latency_ms LIMIT 1 OFFSET (SELECT max(0, (c * 99 + 99) / 100 - 1) FROM n)) AS p99_ms,
        (SELECT max(latency_ms) FROM l) AS max_ms;
PRAGMA user_version = 1;
