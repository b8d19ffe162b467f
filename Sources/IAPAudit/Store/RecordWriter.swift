import Foundation

/// Inserts one file's records, rejections and receipt transactions (inside the caller's transaction).
struct RecordWriter {
    let database: SQLiteDatabase
    let fileId: Int64

    func write(_ file: ImportedFile) throws {
        let client = try database.prepare(
            """
            INSERT INTO client_report (file_id, line, ts_ms, user_id, device_id, transaction_id, original_transaction_id,
                product_id, state, error_code, quantity) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
        for r in file.clientReports {
            try client.run([
                fileId, r.location.line, r.tsMs, r.userId, r.deviceId, r.transactionId, r.originalTransactionId,
                r.productId, r.state.rawValue, r.errorCode, r.quantity,
            ])
        }
        let server = try database.prepare(
            """
            INSERT INTO server_request (file_id, line, ts_ms, request_id, event, user_id, device_id, transaction_ids,
                credited_transaction_ids, restore, receipt_sha256, verify_status, environment, granted, latency_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """)
        for r in file.serverRequests {
            try server.run([
                fileId, r.location.line, r.tsMs, r.requestId, r.event.rawValue, r.userId, r.deviceId,
                IdList.encode(r.transactionIds), r.creditedTransactionIds.map(IdList.encode), r.restore,
                r.receiptSha256, r.verifyStatus, r.environment, r.granted, r.latencyMs,
            ])
        }
        let response = try database.prepare(
            """
            INSERT INTO verify_response (file_id, line, request_id, received_at_ms, status, environment, is_retryable,
                bundle_id, receipt_type, raw_json, source, signature, signed_date_ms, error_message, notification_uuid,
                notification_type, notification_subtype, notification_version, notification_status, notes)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            """)
        let item = try database.prepare(
            """
            INSERT INTO receipt_transaction (response_id, transaction_id, original_transaction_id, product_id, quantity,
                purchase_date_ms, original_purchase_date_ms, expires_date_ms, cancellation_date_ms, cancellation_reason,
                web_order_line_item_id, in_app_ownership_type, is_trial_period, sections, is_in_intro_offer_period,
                bundle_id, environment, type, revocation_type, revocation_percentage, price_milliunits, currency,
                storefront, app_account_token, transaction_reason, signed_date_ms, signature)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
                ?22, ?23, ?24, ?25, ?26, ?27)
            """)
        let renewal = try database.prepare(
            """
            INSERT INTO pending_renewal (response_id, position, original_transaction_id, product_id, auto_renew_product_id,
                auto_renew_status, expiration_intent, is_in_billing_retry_period, grace_period_expires_date_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        // A JSON Lines record's raw text is its line, at source_file.path:line (bytes pinned by
        // source_file.sha256): not stored twice (at 1M transactions that is 1.7 GB of text).
        let keepRaw = file.format != .jsonLines
        for r in file.verifyResponses {
            try response.run([
                fileId, r.location.line, r.requestId, r.receivedAtMs, r.status, r.environment, r.isRetryable,
                r.bundleId, r.receiptType, keepRaw ? r.rawJSON : "", r.source.rawValue, r.signature.text, r.signedDateMs, r.errorMessage,
                r.notification?.notificationUUID, r.notification?.notificationType, r.notification?.subtype,
                r.notification?.version, r.notification?.status, IdList.encode(r.notes),
            ])
            let responseId = try database.scalar("SELECT last_insert_rowid()")
            for (position, p) in r.pendingRenewals.enumerated() {
                try renewal.run([
                    responseId, position, p.originalTransactionId, p.productId, p.autoRenewProductId, p.autoRenewStatus,
                    p.expirationIntent, p.isInBillingRetryPeriod, p.gracePeriodExpiresDateMs,
                ])
            }
            for i in r.items {
                try item.run([
                    responseId, i.transactionId, i.originalTransactionId, i.productId, i.quantity, i.purchaseDateMs,
                    i.originalPurchaseDateMs, i.expiresDateMs, i.cancellationDateMs, i.cancellationReason,
                    i.webOrderLineItemId, i.inAppOwnershipType, i.isTrialPeriod, i.sections.joined(separator: ","),
                    i.isInIntroOfferPeriod, i.bundleId, i.environment, i.type, i.revocationType, i.revocationPercentage,
                    i.priceMilliunits, i.currency, i.storefront, i.appAccountToken, i.transactionReason, i.signedDateMs,
                    i.signature.text,
                ])
            }
        }
        let rejection = try database.prepare("INSERT OR REPLACE INTO rejection (file_id, line, reason, raw_text) VALUES (?1, ?2, ?3, ?4)")
        for r in file.rejections {
            try rejection.run([fileId, r.location.line, r.reason, r.rawText])
        }
    }
}

/// Id lists stored as a JSON array of strings (`["1000000001","1000000002"]`).
enum IdList {
    static func encode(_ ids: [String]) -> String {
        // Ids are digits or plain text almost always: written directly; anything needing escapes goes
        // through JSONSerialization.
        let plain = ids.allSatisfy { id in
            id.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x80 }
        }
        if plain { return "[" + ids.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]" }
        let data = (try? JSONSerialization.data(withJSONObject: ids, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] ?? []
    }
}
