import Foundation
import IAPAuditModel

/// Inserts one file's rows (records, rejections) batch by batch, inside the caller's transaction.
/// Statements are prepared once per file; every text is bound in place from the batch's arena.
///
/// Keys: a record's `record_id` (`response_id` for Apple records) is `file_id << 32 | line`, so a
/// file's records are one key range (deleted by range, never by scanning) and a re-run writes the
/// same keys.
final class RecordWriter {
    let fileId: Int64
    /// Whether `verify_response.raw_json` keeps the record's text (not for JSON Lines: the line is the raw record).
    private let client: SQLiteStatement
    private let server: SQLiteStatement
    private let response: SQLiteStatement
    private let item: SQLiteStatement
    private let renewal: SQLiteStatement
    private let rejection: SQLiteStatement
    private let chunk: SQLiteStatement
    /// Facts of the file not yet stored (flushed in chunks of about `chunkBytes`).
    private var facts = FactSet()
    static let chunkBytes = 1 << 18

    init(database: SQLiteDatabase, fileId: Int64) throws {
        self.fileId = fileId
        client = try database.prepare(
            """
            INSERT INTO client_report (record_id, file_id, line, ts_ms, user_id, device_id, transaction_id,
                original_transaction_id, product_id, state, error_code, quantity)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """)
        server = try database.prepare(
            """
            INSERT INTO server_request (record_id, file_id, line, ts_ms, request_id, event, user_id, device_id, transaction_ids,
                credited_transaction_ids, restore, receipt_sha256, verify_status, environment, granted, latency_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            """)
        response = try database.prepare(
            """
            INSERT INTO verify_response (response_id, file_id, line, request_id, received_at_ms, status, environment,
                is_retryable, bundle_id, receipt_type, raw_json, source, signature, signed_date_ms, error_message,
                notification_uuid, notification_type, notification_subtype, notification_version, notification_status, notes)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
            """)
        item = try database.prepare(
            """
            INSERT INTO receipt_transaction (response_id, position, transaction_id, original_transaction_id, product_id,
                quantity, purchase_date_ms, original_purchase_date_ms, expires_date_ms, cancellation_date_ms,
                cancellation_reason, web_order_line_item_id, in_app_ownership_type, is_trial_period, sections,
                is_in_intro_offer_period, bundle_id, environment, type, revocation_type, revocation_percentage,
                price_milliunits, currency, storefront, app_account_token, transaction_reason, signed_date_ms, signature)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
                ?23, ?24, ?25, ?26, ?27, ?28)
            """)
        renewal = try database.prepare(
            """
            INSERT INTO pending_renewal (response_id, position, original_transaction_id, product_id, auto_renew_product_id,
                auto_renew_status, expiration_intent, is_in_billing_retry_period, grace_period_expires_date_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        rejection = try database.prepare(
            "INSERT OR REPLACE INTO rejection (file_id, line, reason, raw_text) VALUES (?1, ?2, ?3, ?4)")
        chunk = try database.prepare("INSERT INTO fact_chunk (file_id, stream, part, data) VALUES (?1, ?2, ?3, ?4)")
    }

    /// Stores the facts still held and the file's summary (call once, after the last batch).
    func finish() throws {
        try store(facts.take(atLeast: 1))
        try store([(.summary, 0, facts.summary.encoded())])
    }

    private func store(_ chunks: [(stream: FactStream, part: Int, bytes: [UInt8])]) throws {
        for c in chunks {
            chunk.resetForRow()
            chunk.bind(1, fileId)
            chunk.bind(2, Int64(c.stream.rawValue))
            chunk.bind(3, Int64(c.part))
            try c.bytes.withUnsafeBytes { raw in
                chunk.bindBlob(4, raw.baseAddress!, raw.count)
                try chunk.insertRow()
            }
        }
    }

    /// The key of the record at `line` of this file.
    @inline(__always) func key(_ line: UInt32) -> Int64 { fileId << 32 | Int64(line) }

    /// Writes every row of `batch` and keeps its facts (encoded here unless the batch has them).
    /// Throws `SQLiteError`.
    func write(_ batch: RecordBatch) throws {
        if let encoded = batch.facts {
            facts.append(encoded)
        } else {
            FactEncoder.add(batch, to: &facts)
        }
        try store(facts.take(atLeast: Self.chunkBytes))
        try batch.arena.bytes.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? UnsafePointer(bitPattern: 1)!
            @inline(__always) func text(_ s: SQLiteStatement, _ index: Int32, _ ref: TextRef) {
                if !ref.isNull { s.bindText(index, base + Int(ref.start), Int(ref.count)) }
            }
            for r in batch.clients {
                client.resetForRow()
                client.bind(1, key(r.line))
                client.bind(2, fileId)
                client.bind(3, Int64(r.line))
                client.bind(4, r.tsMs)
                text(client, 5, r.userId)
                text(client, 6, r.deviceId)
                text(client, 7, r.transactionId)
                text(client, 8, r.originalTransactionId)
                text(client, 9, r.productId)
                client.bindText(10, r.state.rawValue)
                client.bind(11, r.errorCode)
                client.bind(12, r.quantity)
                try client.insertRow()
            }
            for r in batch.servers {
                server.resetForRow()
                server.bind(1, key(r.line))
                server.bind(2, fileId)
                server.bind(3, Int64(r.line))
                server.bind(4, r.tsMs)
                text(server, 5, r.requestId)
                server.bindText(6, r.event.rawValue)
                text(server, 7, r.userId)
                text(server, 8, r.deviceId)
                text(server, 9, r.transactionIdsJSON)
                text(server, 10, r.creditedTransactionIdsJSON)
                server.bind(11, Int64(r.restore ? 1 : 0))
                text(server, 12, r.receiptSha256)
                server.bind(13, r.verifyStatus)
                text(server, 14, r.environment)
                server.bind(15, Int64(r.granted ? 1 : 0))
                server.bind(16, r.latencyMs)
                try server.insertRow()
            }
            for r in batch.responses {
                let id = key(r.line)
                response.resetForRow()
                response.bind(1, id)
                response.bind(2, fileId)
                response.bind(3, Int64(r.line))
                text(response, 4, r.requestId)
                response.bind(5, r.receivedAtMs)
                response.bind(6, r.status)
                text(response, 7, r.environment)
                response.bind(8, r.isRetryable)
                text(response, 9, r.bundleId)
                text(response, 10, r.receiptType)
                text(response, 11, r.rawJSON)
                response.bindText(12, r.source.rawValue)
                text(response, 13, r.signature)
                response.bind(14, r.signedDateMs)
                text(response, 15, r.errorMessage)
                text(response, 16, r.notificationUUID)
                text(response, 17, r.notificationType)
                text(response, 18, r.notificationSubtype)
                text(response, 19, r.notificationVersion)
                response.bind(20, r.notificationStatus)
                text(response, 21, r.notes)
                try response.insertRow()
                for (position, index) in r.items.enumerated() {
                    let i = batch.items[Int(index)]
                    item.resetForRow()
                    item.bind(1, id)
                    item.bind(2, Int64(position))
                    text(item, 3, i.transactionId)
                    text(item, 4, i.originalTransactionId)
                    text(item, 5, i.productId)
                    item.bind(6, i.quantity)
                    item.bind(7, i.purchaseDateMs)
                    item.bind(8, i.originalPurchaseDateMs)
                    item.bind(9, i.expiresDateMs)
                    item.bind(10, i.cancellationDateMs)
                    text(item, 11, i.cancellationReason)
                    text(item, 12, i.webOrderLineItemId)
                    text(item, 13, i.inAppOwnershipType)
                    item.bind(14, i.isTrialPeriod)
                    text(item, 15, i.sections)
                    item.bind(16, i.isInIntroOfferPeriod)
                    text(item, 17, i.bundleId)
                    text(item, 18, i.environment)
                    text(item, 19, i.type)
                    text(item, 20, i.revocationType)
                    item.bind(21, i.revocationPercentage)
                    item.bind(22, i.priceMilliunits)
                    text(item, 23, i.currency)
                    text(item, 24, i.storefront)
                    text(item, 25, i.appAccountToken)
                    text(item, 26, i.transactionReason)
                    item.bind(27, i.signedDateMs)
                    text(item, 28, i.signature)
                    try item.insertRow()
                }
                for (position, index) in r.renewals.enumerated() {
                    let p = batch.renewals[Int(index)]
                    renewal.resetForRow()
                    renewal.bind(1, id)
                    renewal.bind(2, Int64(position))
                    text(renewal, 3, p.originalTransactionId)
                    text(renewal, 4, p.productId)
                    text(renewal, 5, p.autoRenewProductId)
                    renewal.bind(6, p.autoRenewStatus)
                    renewal.bind(7, p.expirationIntent)
                    renewal.bind(8, p.isInBillingRetryPeriod)
                    renewal.bind(9, p.gracePeriodExpiresDateMs)
                    try renewal.insertRow()
                }
            }
        }
        for r in batch.rejections {
            try rejection.run([fileId, r.location.line, r.reason, r.rawText])
        }
    }

    /// Writes the records an `ImportedFile` holds as values (formats read whole: CSV, documents, signed text).
    func write(_ file: ImportedFile) throws {
        var batch = RecordBatch()
        for r in file.clientReports { batch.append(r) }
        for r in file.serverRequests { batch.append(r) }
        for r in file.appleRecords { batch.append(r, keepRaw: file.format != .jsonLines) }
        batch.rejections = file.rejections
        try write(batch)
    }
}

extension SQLiteStatement {
    /// Binds a constant (static) text.
    @inline(__always) func bindText(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bindTransient(index, $0.baseAddress!, $0.count) }
    }
}
