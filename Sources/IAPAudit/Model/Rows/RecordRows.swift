/// One `client_report` row (see `ClientReport` for the fields' meaning and source).
struct ClientRow: Sendable {
    var line: UInt32
    /// ms since 1970 UTC.
    var tsMs: Int64
    var userId: TextRef
    var deviceId: TextRef
    var transactionId: TextRef
    var originalTransactionId: TextRef
    var productId: TextRef
    var state: ClientState
    var errorCode: Int64?
    var quantity: Int64?
}

/// One `server_request` row (see `ServerRequest`). Id lists are ranges of `RecordBatch.ids`, and
/// their stored form (a JSON array of strings) is ready in the arena.
struct ServerRow: Sendable {
    var line: UInt32
    var tsMs: Int64
    var requestId: TextRef
    var event: ServerEvent
    var userId: TextRef
    var deviceId: TextRef
    var transactionIds: Range<Int32>
    var transactionIdsJSON: TextRef
    /// nil when the log did not say what was credited.
    var creditedTransactionIds: Range<Int32>?
    var creditedTransactionIdsJSON: TextRef
    var restore: Bool
    var receiptSha256: TextRef
    var verifyStatus: Int64?
    var environment: TextRef
    var granted: Bool
    var latencyMs: Int64?
}

/// One `verify_response` row (see `VerifyResponse`): a verifyReceipt answer or any other Apple record.
struct ResponseRow: Sendable {
    var line: UInt32
    var requestId: TextRef
    var receivedAtMs: Int64?
    var status: Int64
    var environment: TextRef
    var isRetryable: Bool?
    var bundleId: TextRef
    var receiptType: TextRef
    /// The record as received, for formats other than JSON Lines (a JSON Lines record is its line
    /// of the input: `source_file.path:line`).
    var rawJSON: TextRef
    /// Bytes of the input holding this record (JSON Lines: its line), for readers that want it back.
    var rawRange: Range<Int>?
    var source: EvidenceSource
    var signature: TextRef
    var signedDateMs: Int64?
    var errorMessage: TextRef
    var notificationUUID: TextRef
    var notificationType: TextRef
    var notificationSubtype: TextRef
    var notificationVersion: TextRef
    var notificationStatus: Int64?
    /// JSON array of strings.
    var notes: TextRef
    /// Its purchases: a range of `RecordBatch.items`.
    var items: Range<Int32>
    /// Its `pending_renewal_info`: a range of `RecordBatch.renewals`.
    var renewals: Range<Int32>
}

/// One `receipt_transaction` row (see `ReceiptItem`).
struct ItemRow: Sendable {
    var transactionId: TextRef
    var originalTransactionId: TextRef = .null
    var productId: TextRef = .null
    var quantity: Int64? = nil
    var purchaseDateMs: Int64? = nil
    var originalPurchaseDateMs: Int64? = nil
    var expiresDateMs: Int64? = nil
    var cancellationDateMs: Int64? = nil
    var cancellationReason: TextRef = .null
    var webOrderLineItemId: TextRef = .null
    var inAppOwnershipType: TextRef = .null
    var isTrialPeriod: Bool? = nil
    /// Comma-separated sections: `in_app,latest_receipt_info`.
    var sections: TextRef = .null
    var isInIntroOfferPeriod: Bool? = nil
    var bundleId: TextRef = .null
    var environment: TextRef = .null
    var type: TextRef = .null
    var revocationType: TextRef = .null
    var revocationPercentage: Int64? = nil
    var priceMilliunits: Int64? = nil
    var currency: TextRef = .null
    var storefront: TextRef = .null
    var appAccountToken: TextRef = .null
    var transactionReason: TextRef = .null
    var signedDateMs: Int64? = nil
    var signature: TextRef = .null

    init(transactionId: TextRef) { self.transactionId = transactionId }
}

/// One `pending_renewal` row (see `PendingRenewalInfo`).
struct RenewalRow: Sendable {
    var originalTransactionId: TextRef
    var productId: TextRef
    var autoRenewProductId: TextRef
    var autoRenewStatus: Int64?
    var expirationIntent: Int64?
    var isInBillingRetryPeriod: Bool?
    var gracePeriodExpiresDateMs: Int64?
}
