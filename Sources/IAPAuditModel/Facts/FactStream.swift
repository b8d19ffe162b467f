/// The streams of reconciliation facts: compact records of just what the rules read, written beside
/// every imported file (table `fact_chunk`) and read back one partition at a time, so reconciliation
/// never holds the whole ledger in memory.
///
/// Every fact starts with its `FactKind` byte. Locations are (file id, line); file id 0 means the
/// file the chunk belongs to (facts are encoded before the store numbers the file).
package enum FactStream: Int, CaseIterable {
    /// One `FileFacts` summary per file (partition 0).
    case summary = 0
    /// Keyed by `request_id`: server-log lines (verify and revoke) and the Apple records that name a request.
    case requests = 1
    /// Keyed by transaction id: client reports, revokes, and listings of Apple records linked to no request.
    case transactions = 2
    /// Keyed by `notificationUUID`: which deliveries of a notification there are.
    case notifications = 3
    /// Keyed by `original_transaction_id`: listings with a `web_order_line_item_id` (re-issued ids).
    case billing = 4
}

/// The record types of the fact format, and the layout of each (after the kind byte):
package enum FactKind: UInt8 {
    /// u32 file, u32 line, i64 ts, u8 event (0 verify, 1 revoke), u8 flags (1 restore, 2 granted),
    /// opt verify_status, text request_id, text user_id, text environment, varint n + n ids,
    /// u8 credited present (+ varint n + n ids).
    case requestLine = 1
    /// What the request stage reads of an Apple record that names a request: text request_id, u32 file,
    /// u32 line, opt received_at, zigzag status, environment (effective: `EnvironmentCode` + raw text
    /// for `.other`), opt-bool is_retryable, text bundle_id, u8 signature failed, varint n + n ×
    /// (id transaction_id, id original_transaction_id, opt purchase_date, u8 signature failed, text bundle_id).
    case linkedResponse = 2
    /// u32 file, u32 line, i64 ts, id transaction_id, u8 state, text user_id, text product_id,
    /// text original_transaction_id.
    case client = 3
    /// u32 file, u32 line, i64 ts, id transaction_id, text user_id.
    case revoke = 4
    /// One purchase as one Apple record lists it: id transaction_id, u32 file, u32 line, opt received_at,
    /// zigzag status, environment (effective), text bundle_id, u8 source (`EvidenceSource` index),
    /// signature (`SignatureCode` + reason text when invalid), opt signed_date, u8 flags
    /// (1 a REFUND_REVERSED notification, 2 FAMILY_SHARED); the item's text product_id, id
    /// original_transaction_id, opt purchase_date, opt cancellation_date, text cancellation_reason, text
    /// revocation_type, opt revocation_percentage, environment (normalized), text bundle_id, signature,
    /// opt signed_date.
    case listing = 5
    /// (Made during reconciliation.) A request that carried or granted a transaction: id transaction_id,
    /// u32 file + u32 line of the request's first line, text request_id, text user_id, i64 ts, i64 latest,
    /// i64 first seen, opt status, text environment, u8 flags (`CarrierFlags`), u8 unresolved reason,
    /// u8 unproven reason, varint n + n × (u32 file, u32 line) evidence.
    case carrier = 6
    /// u32 file, u32 line, text notificationUUID, u8 signature failed.
    case notification = 7
    /// u32 file, u32 line (of the Apple record), id original_transaction_id, text web_order_line_item_id,
    /// id transaction_id.
    case billing = 8
    /// i64 × 5 counts (client reports, server-log records, Apple records, signed Apple records, their
    /// purchases), then the newest client `ts`, server `ts` and Apple `received_at` (each u8 present +
    /// i64 ms + u32 line), then two histograms (varint n + n × (i64 value, i64 count)): `status` of
    /// verifyReceipt responses, `latency_ms` of verification requests.
    case summary = 9
    /// (Made during reconciliation.) The Apple record at (u32 file, u32 line) listing id transaction_id
    /// names a verification request of text user_id.
    case link = 10
}

/// Bits of a carrier fact's flags.
package enum CarrierFlags {
    package static let answered: UInt8 = 1
    package static let sandboxAnswer: UInt8 = 2
    package static let productionSuccess: UInt8 = 4
    package static let finalContains: UInt8 = 8
    package static let restore: UInt8 = 16
    package static let carried: UInt8 = 32
    package static let granted: UInt8 = 64
}

/// What one file holds, for the audit's as-of (SEMANTICS rule 15) and the run's warnings.
package struct FileFacts: Sendable, Equatable {
    package var clientReports: Int64 = 0
    package var serverRecords: Int64 = 0
    package var appleRecords: Int64 = 0
    package var signedAppleRecords: Int64 = 0
    /// Purchases listed by the Apple records (`receipt_transaction` rows).
    package var appleItems: Int64 = 0
    /// verifyReceipt responses by `status` (the Verify Status sheet).
    package var statusCounts: [Int64: Int64] = [:]
    /// Verification requests by `latency_ms` (exact nearest-rank percentiles).
    package var latencyCounts: [Int64: Int64] = [:]
    /// The newest timestamp of each record type and its first line (ms since 1970 UTC).
    package var newestClient: (ms: Int64, line: UInt32)? = nil
    package var newestServer: (ms: Int64, line: UInt32)? = nil
    package var newestReceived: (ms: Int64, line: UInt32)? = nil

    package static func == (a: FileFacts, b: FileFacts) -> Bool {
        (a.clientReports, a.serverRecords, a.appleRecords, a.signedAppleRecords, a.appleItems)
            == (b.clientReports, b.serverRecords, b.appleRecords, b.signedAppleRecords, b.appleItems)
            && a.statusCounts == b.statusCounts && a.latencyCounts == b.latencyCounts
            && a.newestClient?.ms == b.newestClient?.ms && a.newestClient?.line == b.newestClient?.line
            && a.newestServer?.ms == b.newestServer?.ms && a.newestServer?.line == b.newestServer?.line
            && a.newestReceived?.ms == b.newestReceived?.ms && a.newestReceived?.line == b.newestReceived?.line
    }

    /// Keeps the newer timestamp; on a tie the earlier line (this summary's records come first).
    package static func newer(_ a: (ms: Int64, line: UInt32)?, _ b: (ms: Int64, line: UInt32)?) -> (ms: Int64, line: UInt32)? {
        guard let a else { return b }
        guard let b else { return a }
        return b.ms > a.ms ? b : a
    }

    /// This summary followed by `other` (the records after these).
    package mutating func add(_ other: FileFacts) {
        clientReports += other.clientReports
        serverRecords += other.serverRecords
        appleRecords += other.appleRecords
        signedAppleRecords += other.signedAppleRecords
        appleItems += other.appleItems
        statusCounts.merge(other.statusCounts, uniquingKeysWith: +)
        latencyCounts.merge(other.latencyCounts, uniquingKeysWith: +)
        newestClient = Self.newer(newestClient, other.newestClient)
        newestServer = Self.newer(newestServer, other.newestServer)
        newestReceived = Self.newer(newestReceived, other.newestReceived)
    }

    package var isEmpty: Bool { clientReports == 0 && serverRecords == 0 && appleRecords == 0 }

    package func encoded() -> [UInt8] {
        var w = FactWriter()
        w.u8(FactKind.summary.rawValue)
        for count in [clientReports, serverRecords, appleRecords, signedAppleRecords, appleItems] { w.i64(count) }
        for newest in [newestClient, newestServer, newestReceived] {
            if let newest {
                w.u8(1)
                w.i64(newest.ms)
                w.u32(newest.line)
            } else {
                w.u8(0)
            }
        }
        for histogram in [statusCounts, latencyCounts] {
            w.varint(histogram.count)
            for (value, count) in histogram.sorted(by: { $0.key < $1.key }) {
                w.i64(value)
                w.i64(count)
            }
        }
        return w.bytes
    }

    package init() {}

    /// Reads an encoded summary (after its kind byte).
    package init(_ r: inout FactReader) {
        clientReports = r.i64()
        serverRecords = r.i64()
        appleRecords = r.i64()
        signedAppleRecords = r.i64()
        appleItems = r.i64()
        func newest() -> (ms: Int64, line: UInt32)? {
            guard r.u8() == 1 else { return nil }
            let ms = r.i64()
            return (ms, r.u32())
        }
        newestClient = newest()
        newestServer = newest()
        newestReceived = newest()
        func histogram() -> [Int64: Int64] {
            var h: [Int64: Int64] = [:]
            for _ in 0..<r.varint() {
                let value = r.i64()
                h[value] = r.i64()
            }
            return h
        }
        statusCounts = histogram()
        latencyCounts = histogram()
    }
}
