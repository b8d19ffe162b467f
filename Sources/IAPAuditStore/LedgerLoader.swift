import IAPAuditModel

extension AuditStore {
    /// Loads every imported record. Raw response JSON is not loaded (reconciliation does not need it).
    public func loadLedger() throws -> Ledger {
        var ledger = Ledger()
        let client = try database.prepare(
            """
            SELECT f.path, c.line, c.ts_ms, c.user_id, c.device_id, c.transaction_id, c.original_transaction_id,
                   c.product_id, c.state, c.error_code, c.quantity
            FROM client_report c JOIN source_file f USING (file_id) ORDER BY f.path, c.line
            """)
        while try client.step() {
            ledger.clientReports.append(
                ClientReport(
                    location: SourceLocation(file: client.text(0), line: Int(client.int64(1))), tsMs: client.int64(2),
                    userId: client.optionalText(3), deviceId: client.optionalText(4), transactionId: client.optionalText(5),
                    originalTransactionId: client.optionalText(6), productId: client.optionalText(7),
                    state: ClientState(rawValue: client.text(8)) ?? .purchasing,
                    errorCode: client.optionalInt64(9).map { Int($0) }, quantity: client.optionalInt64(10).map { Int($0) }))
        }
        let server = try database.prepare(
            """
            SELECT f.path, s.line, s.ts_ms, s.request_id, s.event, s.user_id, s.device_id, s.transaction_ids,
                   s.credited_transaction_ids, s.restore, s.receipt_sha256, s.verify_status, s.environment, s.granted, s.latency_ms
            FROM server_request s JOIN source_file f USING (file_id) ORDER BY f.path, s.line
            """)
        while try server.step() {
            ledger.serverRequests.append(
                ServerRequest(
                    location: SourceLocation(file: server.text(0), line: Int(server.int64(1))), tsMs: server.int64(2),
                    requestId: server.text(3), event: ServerEvent(rawValue: server.text(4)) ?? .verify,
                    userId: server.optionalText(5), deviceId: server.optionalText(6),
                    transactionIds: IdList.decode(server.text(7)), creditedTransactionIds: server.optionalText(8).map(IdList.decode),
                    restore: server.int64(9) != 0, receiptSha256: server.optionalText(10),
                    verifyStatus: server.optionalInt64(11).map { Int($0) }, environment: server.optionalText(12),
                    granted: server.int64(13) != 0, latencyMs: server.optionalInt64(14)))
        }
        ledger.appleRecords = try loadResponses()
        return ledger
    }

    private func loadResponses() throws -> [AppleRecord] {
        var itemsByResponse: [Int64: [AppleTransaction]] = [:]
        let items = try database.prepare(
            """
            SELECT response_id, transaction_id, original_transaction_id, product_id, quantity, purchase_date_ms,
                   original_purchase_date_ms, expires_date_ms, cancellation_date_ms, cancellation_reason,
                   web_order_line_item_id, in_app_ownership_type, is_trial_period, sections, is_in_intro_offer_period,
                   bundle_id, environment, type, revocation_type, revocation_percentage, price_milliunits, currency,
                   storefront, app_account_token, transaction_reason, signed_date_ms, signature
            FROM receipt_transaction ORDER BY response_id, position
            """)
        while try items.step() {
            var item = AppleTransaction(transactionId: items.text(1), sections: items.text(13).split(separator: ",").map(String.init))
            item.originalTransactionId = items.optionalText(2)
            item.productId = items.optionalText(3)
            item.quantity = items.optionalInt64(4).map { Int($0) }
            item.purchaseDateMs = items.optionalInt64(5)
            item.originalPurchaseDateMs = items.optionalInt64(6)
            item.expiresDateMs = items.optionalInt64(7)
            item.cancellationDateMs = items.optionalInt64(8)
            item.cancellationReason = items.optionalText(9)
            item.webOrderLineItemId = items.optionalText(10)
            item.inAppOwnershipType = items.optionalText(11)
            item.isTrialPeriod = items.optionalInt64(12).map { $0 != 0 }
            item.isInIntroOfferPeriod = items.optionalInt64(14).map { $0 != 0 }
            item.bundleId = items.optionalText(15)
            item.environment = items.optionalText(16)
            item.type = items.optionalText(17)
            item.revocationType = items.optionalText(18)
            item.revocationPercentage = items.optionalInt64(19).map { Int($0) }
            item.priceMilliunits = items.optionalInt64(20)
            item.currency = items.optionalText(21)
            item.storefront = items.optionalText(22)
            item.appAccountToken = items.optionalText(23)
            item.transactionReason = items.optionalText(24)
            item.signedDateMs = items.optionalInt64(25)
            item.signature = SignatureStatus(text: items.text(26)) ?? .notChecked
            itemsByResponse[items.int64(0), default: []].append(item)
        }
        var responses: [AppleRecord] = []
        let statement = try database.prepare(
            """
            SELECT r.response_id, f.path, r.line, r.request_id, r.received_at_ms, r.status, r.environment, r.is_retryable,
                   r.bundle_id, r.receipt_type, r.source, r.signature, r.signed_date_ms, r.error_message, r.notification_uuid,
                   r.notification_type, r.notification_subtype, r.notification_version, r.notification_status
            FROM verify_response r JOIN source_file f USING (file_id) ORDER BY f.path, r.line
            """)
        while try statement.step() {
            var response = AppleRecord(
                location: SourceLocation(file: statement.text(1), line: Int(statement.int64(2))),
                requestId: statement.optionalText(3), receivedAtMs: statement.optionalInt64(4), status: Int(statement.int64(5)),
                environment: statement.optionalText(6), isRetryable: statement.optionalInt64(7).map { $0 != 0 },
                bundleId: statement.optionalText(8), receiptType: statement.optionalText(9),
                items: itemsByResponse[statement.int64(0)] ?? [], rawJSON: "")
            response.source = EvidenceSource(rawValue: statement.text(10)) ?? .verifyReceipt
            response.signature = SignatureStatus(text: statement.text(11)) ?? .notChecked
            response.signedDateMs = statement.optionalInt64(12)
            response.errorMessage = statement.optionalText(13)
            if let type = statement.optionalText(15) {
                var info = NotificationInfo(
                    notificationUUID: statement.optionalText(14), notificationType: type, subtype: statement.optionalText(16),
                    version: statement.optionalText(17))
                info.status = statement.optionalInt64(18).map { Int($0) }
                response.notification = info
            }
            responses.append(response)
        }
        return responses
    }
}
