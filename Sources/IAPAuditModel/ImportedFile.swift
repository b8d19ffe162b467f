/// What an input file was taken for, detected from its content (never its name).
public enum SourceKind: String, Sendable, CaseIterable {
    /// Client-reported StoreKit transactions (JSON Lines or CSV).
    case clientReport = "client_report"
    /// The app server's verification log (JSON Lines or CSV).
    case serverLog = "server_log"
    /// Apple verifyReceipt responses: wrapped lines, bare lines or one bare document.
    case verifyResponse = "verify_response"
    /// JWS signed transactions, renewal info or app transactions: compact, wrapped with a request id,
    /// or decoded payload JSON (`signature: not_checked`).
    case signedTransaction = "signed_transaction"
    /// App Store Server API responses and error bodies.
    case serverAPIResponse = "server_api_response"
    /// App Store Server Notifications V2 (`signedPayload`) or their decoded payloads.
    case notificationV2 = "notification_v2"
    /// App Store Server Notifications V1 (status update) bodies.
    case notificationV1 = "notification_v1"
    /// App receipts as clients post them: PKCS#7 (base64 or DER), iOS 6 transaction receipts,
    /// Unity IAP wrappers.
    case appReceipt = "app_receipt"
    /// JSON Lines holding records of more than one kind (server-log lines beside wrapped verifyReceipt
    /// answers…), each line read as what it is; `ImportedFile.note` names the kinds
    /// (`mixed: server transaction log, verifyReceipt responses linked to server requests`).
    case mixed = "mixed"
    /// App Store Connect reports (not transaction evidence: no reconciliation fact is made from them).
    /// Sales and Trends Summary Sales, or the legacy daily sales report of 2009–2010.
    case salesReport = "sales_report"
    /// Sales and Trends Subscription report (active subscriptions by price and country).
    case subscriptionReport = "subscription_report"
    /// Sales and Trends Subscription Event report.
    case subscriptionEventReport = "subscription_event_report"
    /// Sales and Trends Subscriber report.
    case subscriberReport = "subscriber_report"
    /// Financial report, one region or all regions.
    case financialReport = "financial_report"
    /// The payments summary (`financial_report.csv`).
    case paymentsSummary = "payments_summary"
    /// Anything else: skipped with a reason (`ImportedFile.note`).
    case other = "other"

    /// One of App Store Connect's reports: not transaction evidence.
    public var isAppStoreConnectReport: Bool {
        switch self {
        case .salesReport, .subscriptionReport, .subscriptionEventReport, .subscriberReport, .financialReport, .paymentsSummary: true
        default: false
        }
    }
}

/// How a file's records are laid out.
public enum SourceFormat: String, Sendable {
    case jsonLines = "jsonl", csv, jsonDocument = "json"
    /// Tab-separated values with a header line (App Store Connect's reports).
    case tsv
    /// Opaque text records, one per line (compact JWS, base64 receipts) or one line-wrapped blob.
    case text
    /// Raw binary (a DER PKCS#7 receipt): one record.
    case binary
    case none
}

/// The outcome for one file.
public enum ImportStatus: String, Sendable {
    /// Read: its records were imported or rejected line by line.
    case imported
    /// Not read as evidence (a kind not supported yet, not evidence, or the same content as another file).
    case skipped
    /// Could not be read at all (e.g. malformed JSON); one rejection carries the reason.
    case rejected
}

/// What one input file was taken for, and how many of its records were imported or rejected (the
/// records themselves went to the store batch by batch, through a `RecordSink`).
public struct ImportedFile: Sendable {
    public var path: String
    public var sha256: String
    public var bytes: Int
    public var kind: SourceKind
    public var format: SourceFormat
    public var status: ImportStatus
    /// What the file was taken for, or why it was skipped or rejected.
    public var note: String
    /// Records in: non-blank lines (JSON Lines, CSV rows after the header) or 1 for a document.
    public var recordsIn: Int
    /// Records imported: `recordsIn - recordsRejected`.
    public var recordsImported = 0
    /// Records rejected, each with its `file:line` and reason.
    public var recordsRejected = 0

    public init(
        path: String, sha256: String, bytes: Int, kind: SourceKind, format: SourceFormat, status: ImportStatus, note: String,
        recordsIn: Int = 0
    ) {
        (self.path, self.sha256, self.bytes, self.kind, self.format, self.status, self.note, self.recordsIn) = (
            path, sha256, bytes, kind, format, status, note, recordsIn
        )
    }

    /// Counts a batch's records and rejections (as it goes to the store).
    package mutating func count(_ batch: RecordBatch) {
        recordsImported += batch.recordCount
        recordsRejected += batch.rejections.count
    }
}
