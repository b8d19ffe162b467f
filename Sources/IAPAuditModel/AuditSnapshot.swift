/// One input file as recorded in table `source_file`.
public struct FileSummary: Sendable, Equatable {
    public var path: String
    public var sha256: String
    public var bytes: Int64
    /// `client_report`, `server_log`, `verify_response` or `other`.
    public var kind: String
    public var format: String
    /// `imported`, `skipped` or `rejected`.
    public var status: String
    public var note: String
    public var recordsIn: Int64
    public var recordsImported: Int64
    public var recordsRejected: Int64

    package init(
        path: String, sha256: String, bytes: Int64, kind: String, format: String, status: String, note: String, recordsIn: Int64,
        recordsImported: Int64, recordsRejected: Int64
    ) {
        (
            self.path, self.sha256, self.bytes, self.kind, self.format, self.status, self.note, self.recordsIn, self.recordsImported,
            self.recordsRejected
        ) = (path, sha256, bytes, kind, format, status, note, recordsIn, recordsImported, recordsRejected)
    }

    /// As a redacted output shows it: the object keys its note lists not shown (`IdRedactor.keysRedacted`).
    public var keysRedacted: FileSummary {
        var file = self
        file.note = IdRedactor.keysRedacted(note)
        return file
    }
}

/// How many verify responses carried one `status`.
public struct StatusCount: Sendable, Equatable {
    public var status: Int
    public var meaning: String
    public var responses: Int64

    package init(status: Int, meaning: String, responses: Int64) {
        (self.status, self.meaning, self.responses) = (status, meaning, responses)
    }
}

/// Verify round-trip latency of server requests, milliseconds (nearest-rank percentiles).
public struct LatencySummary: Sendable, Equatable {
    public var requests: Int64
    public var p50Ms: Int64?
    public var p90Ms: Int64?
    public var p95Ms: Int64?
    public var p99Ms: Int64?
    public var maxMs: Int64?

    public init(requests: Int64, p50Ms: Int64?, p90Ms: Int64?, p95Ms: Int64?, p99Ms: Int64?, maxMs: Int64?) {
        (self.requests, self.p50Ms, self.p90Ms, self.p95Ms, self.p99Ms, self.maxMs) = (requests, p50Ms, p90Ms, p95Ms, p99Ms, maxMs)
    }

    /// Nearest-rank percentiles of a histogram (latency in ms → requests): the value at rank
    /// max(1, ⌈n × p / 100⌉) in ascending order, as view `latency_percentiles` computes them.
    package init(_ histogram: [Int64: Int64]) {
        let sorted = histogram.sorted { $0.key < $1.key }
        let n = sorted.reduce(Int64(0)) { $0 + $1.value }
        func percentile(_ p: Int64) -> Int64? {
            guard n > 0 else { return nil }
            let rank = max(1, (n * p + 99) / 100)
            var seen: Int64 = 0
            for (value, count) in sorted {
                seen += count
                if seen >= rank { return value }
            }
            return sorted.last?.key
        }
        self.init(
            requests: n, p50Ms: percentile(50), p90Ms: percentile(90), p95Ms: percentile(95), p99Ms: percentile(99),
            maxMs: sorted.last?.key)
    }
}

/// Everything the reports show, read back from the store after a run. The large parts (findings,
/// rejections, Apple records) are streams: counted, and read while the reports are written.
public struct AuditSnapshot: Sendable {
    public var files: [FileSummary]
    /// Every rejected record, in (file, line) order.
    public var rejections: RecordStream<Rejection>
    public var findings: FindingStream
    public var statuses: [StatusCount]
    public var latency: LatencySummary
    /// Records by table: `client_report`, `server_request`, `apple_record`, `apple_transaction`, `rejection`.
    public var recordCounts: [String: Int64]
    /// as_of, grace_hours, config… (table `run_parameter`).
    public var parameters: [String: String]
    /// Every record that is not a verifyReceipt response (signed transactions, notifications, Server API
    /// pages, receipts), with its signature state, in (file, line) order.
    public var appleRecords: RecordStream<AppleRecordSummary> = RecordStream([])
    /// The run's warnings (table `run_warning`), in the order the run gave them.
    public var warnings: [RunWarning] = []
    /// What the run changed in the findings' lifecycle (the Changes sheet); nil when it records none (a close).
    public var changes: RunChanges? = nil
    /// Apple's price by transaction id, from verified signed transactions: what a finding's action is worth.
    public var prices: [String: Money] = [:]

    public init(
        files: [FileSummary], rejections: RecordStream<Rejection>, findings: FindingStream, statuses: [StatusCount],
        latency: LatencySummary, recordCounts: [String: Int64], parameters: [String: String]
    ) {
        (self.files, self.rejections, self.findings, self.statuses, self.latency, self.recordCounts, self.parameters) = (
            files, rejections, findings, statuses, latency, recordCounts, parameters
        )
    }
}

/// One non-verifyReceipt row of `apple_record`, for the Apple Records sheet.
public struct AppleRecordSummary: Sendable, Equatable {
    public var location: SourceLocation
    /// `EvidenceSource` raw value: `signed_transaction`, `notification_v2`, `app_receipt`…
    public var source: String
    /// `verified`, `invalid:<reason>`, `untrusted_root`, `not_checked`.
    public var signature: String
    public var environment: String?
    public var bundleId: String?
    /// `notificationType/subtype` for notifications.
    public var notification: String?
    public var notificationUUID: String?
    /// `signedDate` (or receipt creation date), ms since 1970 UTC.
    public var signedDateMs: Int64?
    public var requestId: String?
    /// `status` (Server API: `errorCode`).
    public var status: Int
    /// Transaction ids listed (comma-separated).
    public var transactionIds: String
    /// JSON array of what could not be read inside the record, plus the Server API `errorMessage`.
    public var notes: String

    package init(
        location: SourceLocation, source: String, signature: String, environment: String? = nil, bundleId: String? = nil,
        notification: String? = nil, notificationUUID: String? = nil, signedDateMs: Int64? = nil, requestId: String? = nil, status: Int,
        transactionIds: String, notes: String
    ) {
        (
            self.location, self.source, self.signature, self.environment, self.bundleId, self.notification, self.notificationUUID,
            self.signedDateMs, self.requestId, self.status, self.transactionIds, self.notes
        ) = (
            location, source, signature, environment, bundleId, notification, notificationUUID, signedDateMs, requestId, status,
            transactionIds, notes
        )
    }
}
