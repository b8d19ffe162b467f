import IAPAuditModel

/// The fast path of `ServerRequestParser` for one scanned JSON Lines record (`Unsure` hands the line
/// to the strict reader).
enum ServerLineReader {
    static let keys = KeyTable([
        "ts", "request_id", "event", "user_id", "device_id", "transaction_ids", "credited_transaction_ids", "restore",
        "receipt_sha256", "verify_status", "environment", "granted", "latency_ms",
        // What makes a line with `request_id` and `transaction_ids` another kind of record (`RecordShape.of`).
        "response", "signed_transaction", "receipt_data", "transactionReceipt", "Store", "Payload", "credited_quantity",
    ])

    static func read(_ v: TapeView, line: UInt32, into batch: inout RecordBatch, slots s: UnsafeMutablePointer<Int32>) throws(Unsure) {
        guard v.kind(0) == LineTape.Kind.object else { throw Unsure() }
        v.members(of: 0, keys, s)
        // A server-log record by `RecordShape.of` only (a wrapped answer or posted receipt is read strictly, as what it is).
        if s[13] >= 0 || s[14] >= 0 || s[15] >= 0 || s[16] >= 0 || (s[17] >= 0 && s[18] >= 0) { throw Unsure() }
        // `credited_quantity` (a number or an object of ids) is the strict reader's.
        if v.kind(s[19]) != .absent && v.kind(s[19]) != .null { throw Unsure() }
        let event: ServerEvent
        switch try v.text(s[2]) {
        case nil: event = .verify
        case let b? where b.isEmpty || TapeView.equals(b, "verify"): event = .verify
        case let b? where TapeView.equals(b, "revoke"): event = .revoke
        default: throw Unsure()
        }
        let granted = try v.bool(s[11])
        if granted == nil && event == .verify { throw Unsure() }
        guard let ts = try v.timestamp(s[0]), ts >= Timestamp.earliestLogEpochMs, let requestId = try v.id(s[1]) else { throw Unsure() }
        let latency = try v.integer(s[12])
        if let latency, latency < 0 { throw Unsure() }
        let status = try v.integer(s[9])
        let restore = try v.bool(s[7]) ?? false
        let environment = try v.text(s[10])
        let userId = try v.id(s[3])
        let deviceId = try v.id(s[4])
        let sha = try v.id(s[8])
        guard let ids = try idList(v, s[5], &batch), !ids.range.isEmpty else { throw Unsure() }
        let credited = try idList(v, s[6], &batch)
        batch.serverRequests.append(
            ServerRow(
                line: line, tsMs: ts, requestId: batch.arena.append(requestId), event: event, userId: batch.arena.append(userId),
                deviceId: batch.arena.append(deviceId), transactionIds: ids.range, transactionIdsJSON: ids.json,
                creditedTransactionIds: credited?.range, creditedTransactionIdsJSON: credited?.json ?? .null, restore: restore,
                receiptSha256: batch.arena.append(sha), verifyStatus: status,
                environment: environment.flatMap { $0.isEmpty ? nil : $0 }.map { batch.arena.append($0) } ?? .null,
                granted: granted ?? false, latencyMs: latency))
    }

    /// An array of ids (what the strict `RecordObject.ids` returns for an array), stored in `batch.ids` and as its JSON text
    /// (`IdList.encode`); nil when absent or null.
    private static func idList(_ v: TapeView, _ index: Int32, _ batch: inout RecordBatch) throws(Unsure)
        -> (range: Range<Int32>, json: TextRef)?
    {
        switch v.kind(index) {
        case .absent, .null: return nil
        case LineTape.Kind.array: break
        default: throw Unsure()  // a scalar or `;`-separated text: the strict reader's rules
        }
        let first = Int32(batch.ids.count)
        var json: [UInt8] = [UInt8(ascii: "[")]
        try v.elements(of: index) { (element: Int32) throws(Unsure) in
            guard let id = try v.id(element) else { throw Unsure() }
            // IdList.encode writes plain ASCII ids directly; anything else goes through Foundation.
            guard !id.contains(where: { $0 >= 0x80 }) else { throw Unsure() }
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "\""))
            json.append(contentsOf: id)
            json.append(UInt8(ascii: "\""))
            batch.ids.append(batch.arena.append(id))
        }
        json.append(UInt8(ascii: "]"))
        return (first..<Int32(batch.ids.count), batch.arena.append(bytes: json))
    }
}
