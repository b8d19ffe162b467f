import IAPAuditModel

/// The fast path of `ClientReportParser` for one scanned JSON Lines record: the same fields, the same
/// rules; `Unsure` whenever the strict reader could answer otherwise (it then reads the line).
enum ClientLineReader {
    static let keys = KeyTable([
        "ts", "user_id", "device_id", "transaction_id", "original_transaction_id", "product_id", "state", "error_code",
        "quantity",
        // What makes a line with `state` another kind of record (`RecordShape.of`): a server-log line, a
        // wrapped answer, a posted receipt.
        "request_id", "transaction_ids", "response", "signed_transaction", "receipt_data", "transactionReceipt", "Store", "Payload",
    ])

    static func read(_ v: TapeView, line: UInt32, into batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>) throws(Unsure) {
        guard v.kind(0) == LineTape.Kind.object else { throw Unsure() }
        v.members(of: 0, keys, s)
        // A client report by `RecordShape.of` only: `state` with `transaction_id` or `user_id`, and none of
        // the keys that make it another record (the strict reader reads such a line by its own kind).
        if (s[3] < 0 && s[1] < 0) || (s[9] >= 0 && (s[10] >= 0 || s[11] >= 0 || s[12] >= 0)) || s[13] >= 0 || s[14] >= 0
            || (s[15] >= 0 && s[16] >= 0)
        {
            throw Unsure()
        }
        guard let stateText = try v.text(s[6]), let state = state(stateText) else { throw Unsure() }
        let transactionId = try v.id(s[3])
        if transactionId == nil && (state == .purchased || state == .restored) { throw Unsure() }
        guard let ts = try v.timestamp(s[0]), ts >= Timestamp.earliestLogEpochMs else { throw Unsure() }
        let quantity = try v.integer(s[8])
        if let quantity, quantity < 1 { throw Unsure() }
        let userId = try v.id(s[1])
        let deviceId = try v.id(s[2])
        let originalId = try v.id(s[4])
        let productId = try v.id(s[5])
        let errorCode = try v.integer(s[7])
        batch.clientReports.append(
            ClientRow(
                line: line, tsMs: ts, userId: batch.arena.append(userId), deviceId: batch.arena.append(deviceId),
                transactionId: batch.arena.append(transactionId), originalTransactionId: batch.arena.append(originalId),
                productId: batch.arena.append(productId), state: state, errorCode: errorCode, quantity: quantity))
    }

    private static func state(_ b: UnsafeBufferPointer<UInt8>) -> ClientState? {
        switch b.count {
        case 6 where TapeView.equals(b, "failed"): return .failed
        case 8 where TapeView.equals(b, "deferred"): return .deferred
        case 8 where TapeView.equals(b, "restored"): return .restored
        case 9 where TapeView.equals(b, "purchased"): return .purchased
        case 10 where TapeView.equals(b, "purchasing"): return .purchasing
        default: return nil
        }
    }
}

extension TextArena {
    /// Appends the bytes of a field read from a tape; nil is `.null`.
    @inline(__always) mutating func append(_ b: UnsafeBufferPointer<UInt8>?) -> TextRef {
        guard let b else { return .null }
        guard let base = b.baseAddress, !b.isEmpty else { return TextRef(start: UInt32(count), count: 0) }
        return append(base, b.count)
    }
}
