import Foundation
import IAPAuditModel

/// The fast path of `VerifyResponseParser` (and of the wrapped-line rules of `RecordDispatcher`) for
/// one scanned JSON Lines record: a verifyReceipt answer, wrapped `{"request_id", "received_at",
/// "response"}` or bare. `Unsure` hands the line to the strict reader: signed bodies, iOS 6 flat
/// receipts, escapes and every malformed value go there.
enum VerifyLineReader {
    /// `order_id` makes the line a Look Up Order ID answer (`RecordShape.wrappedOrderLookup`): the strict reader's.
    static let wrapperKeys = KeyTable(["request_id", "received_at", "response", "order_id"])

    enum Body {
        static let keys = KeyTable([
            "status", "environment", "is-retryable", "is_retryable", "receipt", "latest_receipt_info",
            "latest_expired_receipt_info", "pending_renewal_info", "signedTransactions", "errorCode", "signedTransactionInfo",
            "request_id", "transaction_ids", "state",
            // What makes a bare line another kind of record (`RecordShape.of`): a posted receipt, a
            // notification, a Server API body.
            "receipt_data", "transactionReceipt", "Store", "Payload", "notification_type", "signedPayload", "notificationType",
            "notificationHistory", "hasMore", "data", "success",
        ])
        static let (status, environment, isRetryableDash, isRetryable, receipt, latest, latestExpired, pending) = (
            0, 1, 2, 3, 4, 5, 6, 7
        )
        static let signedKeys = [8, 9, 10]
        /// Keys no bare verifyReceipt line has: a line holding one is left to the strict reader, which reads
        /// it by its own shape (`Store` and `Payload` count together).
        static let recordKeys = [11, 12, 13, 14, 15, 18, 19, 20, 21, 22, 23, 24]
        static let (store, payload) = (16, 17)
    }

    enum Receipt {
        static let keys = KeyTable([
            "bundle_id", "bid", "receipt_type", "in_app", "transaction_id", "receipt_creation_date_ms", "receipt_creation_date",
            "receipt_creation_date_pst", "request_date_ms", "request_date", "request_date_pst",
        ])
        static let (receiptCreationDate, requestDate) = (5, 8)
    }

    enum Item {
        static let keys = KeyTable([
            "transaction_id", "original_transaction_id", "product_id", "quantity", "cancellation_reason",
            "web_order_line_item_id", "in_app_ownership_type", "is_trial_period",
            "purchase_date_ms", "purchase_date", "purchase_date_pst",
            "original_purchase_date_ms", "original_purchase_date", "original_purchase_date_pst",
            "expires_date_ms", "expires_date", "expires_date_pst",
            "expires_date_formatted_ms", "expires_date_formatted", "expires_date_formatted_pst",
            "cancellation_date_ms", "cancellation_date", "cancellation_date_pst", "is_in_intro_offer_period",
        ])
        static let (purchase, originalPurchase, expires, expiresFormatted, cancellation, introOffer) = (8, 11, 14, 17, 20, 23)
    }

    enum Renewal {
        static let keys = KeyTable([
            "original_transaction_id", "product_id", "auto_renew_product_id", "auto_renew_status", "expiration_intent",
            "is_in_billing_retry_period", "grace_period_expires_date_ms", "grace_period_expires_date",
            "grace_period_expires_date_pst",
        ])
    }

    /// Slots each reader needs at once: a wrapped line's keys (4), then per body its keys (32), its
    /// receipt's (16) and one item's or renewal's (32).
    static let slotCount = 4 * 32

    /// A wrapped line: `{"request_id", "received_at", "response": {…}}`.
    static func readWrapped(
        _ v: TapeView, line: UInt32, into batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>
    ) throws(Unsure) {
        guard v.kind(0) == LineTape.Kind.object else { throw Unsure() }
        v.members(of: 0, wrapperKeys, s)
        let body = s[2]
        guard s[3] < 0, v.kind(body) == LineTape.Kind.object, let requestId = try v.id(s[0]), let received = try v.timestamp(s[1]),
            received >= Timestamp.earliestLogEpochMs
        else { throw Unsure() }
        try read(body: body, v, line: line, requestId: requestId, receivedAtMs: received, into: &batch, slots: s + 4)
    }

    /// A bare response line (Apple's body itself, not linked to a request).
    static func readBare(
        _ v: TapeView, line: UInt32, into batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>
    ) throws(Unsure) {
        guard v.kind(0) == LineTape.Kind.object else { throw Unsure() }
        try read(body: 0, v, line: line, requestId: nil, receivedAtMs: nil, into: &batch, slots: s, bare: true)
    }

    private static func read(
        body: Int32, _ v: TapeView, line: UInt32, requestId: UnsafeBufferPointer<UInt8>?, receivedAtMs: Int64?,
        into batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>, bare: Bool = false
    ) throws(Unsure) {
        v.members(of: body, Body.keys, s)
        // Not a verifyReceipt body (Server API, signed payloads) or another record kind: the strict reader says.
        guard s[Body.status] >= 0, Body.signedKeys.allSatisfy({ s[$0] < 0 }) else { throw Unsure() }
        if bare && (Body.recordKeys.contains(where: { s[$0] >= 0 }) || (s[Body.store] >= 0 && s[Body.payload] >= 0)) {
            throw Unsure()
        }
        guard let status = try v.integer(s[Body.status]) else { throw Unsure() }
        // A bare line is a verifyReceipt answer by `RecordShape.of` only with one of these, or a known status.
        if bare && s[Body.receipt] < 0 && s[Body.latest] < 0 && s[Body.environment] < 0
            && !(status == 0 || (21000...21199).contains(status))
        {
            throw Unsure()
        }
        let environment = try v.text(s[Body.environment])
        let isRetryable = try v.bool(s[Body.isRetryableDash] >= 0 ? s[Body.isRetryableDash] : s[Body.isRetryable])
        let receipt = v.kind(s[Body.receipt]) == LineTape.Kind.object ? s[Body.receipt] : -1
        let sections = (s[Body.latest], s[Body.latestExpired], s[Body.pending])
        var bundleId: UnsafeBufferPointer<UInt8>? = nil
        var receiptType: UnsafeBufferPointer<UInt8>? = nil
        var receiptCreatedMs: Int64? = nil
        var requestDateMs: Int64? = nil
        var items = ItemList(first: batch.appleTransactions.count)
        let r = s + 32
        if receipt >= 0 {
            v.members(of: receipt, Receipt.keys, r)
            bundleId = try v.text(r[0] >= 0 ? r[0] : r[1])
            receiptType = try v.text(r[2])
            receiptCreatedMs = try date(v, r, Receipt.receiptCreationDate)
            requestDateMs = try date(v, r, Receipt.requestDate)
            if r[3] >= 0 {
                let inApp = r[3]
                try objects(v, inApp) { (o: Int32) throws(Unsure) in try item(v, o, section: 1, &items, &batch, slots: s + 48) }
            } else if r[4] >= 0 {
                throw Unsure()  // an iOS 6 flat receipt
            }
        }
        for (value, section) in [(sections.0, UInt8(2)), (sections.1, UInt8(4))] where value >= 0 {
            try objects(v, value) { (o: Int32) throws(Unsure) in try item(v, o, section: section, &items, &batch, slots: s + 48) }
        }
        let renewalStart = Int32(batch.pendingRenewals.count)
        if sections.2 >= 0 {
            try objects(v, sections.2) { (o: Int32) throws(Unsure) in try renewal(v, o, &batch, slots: s + 48) }
        }
        items.finish(&batch)
        let texts = (
            batch.arena.append(requestId), batch.arena.append(environment), batch.arena.append(bundleId),
            batch.arena.append(receiptType)
        )
        // A JSON Lines record's text is its line (`file:line`): `raw_json` stays empty.
        batch.appleRecords.append(
            AppleRecordRow(
                line: line, requestId: texts.0, receivedAtMs: receivedAtMs, status: status, environment: texts.1,
                isRetryable: isRetryable, bundleId: texts.2, receiptType: texts.3, receiptCreationDateMs: receiptCreatedMs,
                requestDateMs: requestDateMs,
                items: Int32(items.first)..<Int32(batch.appleTransactions.count),
                pendingRenewals: renewalStart..<Int32(batch.pendingRenewals.count), rawJSON: TextRef(start: 0, count: 0),
                source: .verifyReceipt, signature: batch.arena.append(SignatureStatus.notChecked.text), notes: batch.arena.append("[]")))
    }

    /// `VerifyResponseParser.objects`: an array of objects, one object, or null (none).
    private static func objects(_ v: TapeView, _ value: Int32, _ body: (Int32) throws(Unsure) -> Void) throws(Unsure) {
        switch v.kind(value) {
        case LineTape.Kind.object: try body(value)
        case LineTape.Kind.null: return
        case LineTape.Kind.array:
            try v.elements(of: value) { (e: Int32) throws(Unsure) in
                guard v.kind(e) == LineTape.Kind.object else { throw Unsure() }
                try body(e)
            }
        default: throw Unsure()
        }
    }

    /// One purchase; a transaction already listed in this response is merged into its first listing
    /// (`AppleTransaction.merge`: missing fields filled, the section added).
    private static func item(
        _ v: TapeView, _ o: Int32, section: UInt8, _ items: inout ItemList, _ batch: inout RecordBatch,
        slots s: UnsafeMutablePointer<Int32>
    ) throws(Unsure) {
        v.members(of: o, Item.keys, s)
        guard let id = try v.id(s[0]) else { throw Unsure() }
        var row = AppleTransactionRow(transactionId: .null)
        row.originalTransactionId = batch.arena.append(try v.id(s[1]))
        row.productId = batch.arena.append(try v.id(s[2]))
        row.quantity = try v.integer(s[3])
        row.purchaseDateMs = try date(v, s, Item.purchase)
        row.originalPurchaseDateMs = try date(v, s, Item.originalPurchase)
        row.expiresDateMs = try date(v, s, Item.expires)
        if row.expiresDateMs == nil { row.expiresDateMs = try date(v, s, Item.expiresFormatted) }
        row.cancellationDateMs = try date(v, s, Item.cancellation)
        row.cancellationReason = batch.arena.append(try v.text(s[4]))
        row.webOrderLineItemId = batch.arena.append(try v.id(s[5]))
        row.inAppOwnershipType = batch.arena.append(try v.text(s[6]))
        row.isTrialPeriod = try v.bool(s[7])
        row.isInIntroOfferPeriod = try v.bool(s[Item.introOffer])
        items.add(id, row, section: section, &batch)
    }

    /// `VerifyResponseParser.date`: `<name>_ms`, else `<name>` (Etc/GMT), else `<name>_pst`; a key
    /// that is absent, null or "" passes to the next.
    @inline(__always)
    private static func date(_ v: TapeView, _ s: UnsafeMutablePointer<Int32>, _ first: Int) throws(Unsure) -> Int64? {
        for k in first..<(first + 3) where s[k] >= 0 {
            if let ms = try v.timestamp(s[k]) { return ms }
        }
        return nil
    }

    private static func renewal(_ v: TapeView, _ o: Int32, _ batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>)
        throws(Unsure)
    {
        v.members(of: o, Renewal.keys, s)
        let row = PendingRenewalRow(
            originalTransactionId: batch.arena.append(try v.id(s[0])), productId: batch.arena.append(try v.id(s[1])),
            autoRenewProductId: batch.arena.append(try v.id(s[2])), autoRenewStatus: try v.integer(s[3]),
            expirationIntent: try v.integer(s[4]), isInBillingRetryPeriod: try v.bool(s[5]),
            gracePeriodExpiresDateMs: try date(v, s, 6))
        batch.pendingRenewals.append(row)
    }
}

/// The purchases of one response while it is read: de-duplicated by `transaction_id` in order of first
/// listing, each with the sections it appeared in (bits: 1 `in_app`, 2 `latest_receipt_info`,
/// 4 `latest_expired_receipt_info`).
private struct ItemList {
    let first: Int
    var sections: [UInt8] = []
    var ids: [UnsafeBufferPointer<UInt8>] = []
    /// Position in `ids` by id, once the list is too long to search (a long purchase history).
    var index: [IdBytes: Int] = [:]

    /// Up to this many purchases are searched one by one; beyond it, through `index`.
    static let scanLimit = 16

    init(first: Int) { self.first = first }

    mutating func add(_ id: UnsafeBufferPointer<UInt8>, _ row: AppleTransactionRow, section: UInt8, _ batch: inout RecordBatch) {
        if let k = position(of: id) {
            batch.appleTransactions[first + k].merge(row)
            sections[k] |= section
            return
        }
        var row = row
        row.transactionId = batch.arena.append(id)
        batch.appleTransactions.append(row)
        ids.append(id)
        sections.append(section)
        if ids.count > Self.scanLimit {
            if index.isEmpty { for (k, other) in ids.enumerated() { index[IdBytes(other)] = k } }
            index[IdBytes(id)] = ids.count - 1
        }
    }

    private func position(of id: UnsafeBufferPointer<UInt8>) -> Int? {
        if ids.count > Self.scanLimit { return index[IdBytes(id)] }
        return ids.firstIndex { IdBytes($0) == IdBytes(id) }
    }

    func finish(_ batch: inout RecordBatch) {
        let signature = batch.arena.append(SignatureStatus.notChecked.text)
        for (k, bits) in sections.enumerated() {
            batch.appleTransactions[first + k].sections = batch.arena.append(bytes: Self.sectionNames[Int(bits)])
            batch.appleTransactions[first + k].signature = signature
        }
    }

    /// `sections` text for each combination of bits.
    private static let sectionNames: [[UInt8]] = (0..<8).map { bits in
        let names = [(1, "in_app"), (2, "latest_receipt_info"), (4, "latest_expired_receipt_info")]
        return Array(names.filter { bits & $0.0 != 0 }.map(\.1).joined(separator: ",").utf8)
    }
}

/// A transaction id's bytes (in the line being read) as a dictionary key, compared byte for byte.
private struct IdBytes: Hashable {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func == (a: IdBytes, b: IdBytes) -> Bool {
        a.bytes.count == b.bytes.count && (a.bytes.count == 0 || memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
}
