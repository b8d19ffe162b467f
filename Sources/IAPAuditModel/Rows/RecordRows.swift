/// One `client_report` row (see `ClientReport` for the fields' meaning and source).
package struct ClientRow: Sendable {
    package var line: UInt32
    /// ms since 1970 UTC.
    package var tsMs: Int64
    package var userId: TextRef
    package var deviceId: TextRef
    package var transactionId: TextRef
    package var originalTransactionId: TextRef
    package var productId: TextRef
    package var state: ClientState
    package var errorCode: Int64?
    package var quantity: Int64?

    package init(
        line: UInt32, tsMs: Int64, userId: TextRef, deviceId: TextRef, transactionId: TextRef, originalTransactionId: TextRef,
        productId: TextRef, state: ClientState, errorCode: Int64? = nil, quantity: Int64? = nil
    ) {
        self.line = line
        self.tsMs = tsMs
        self.userId = userId
        self.deviceId = deviceId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.state = state
        self.errorCode = errorCode
        self.quantity = quantity
    }
}

/// One `server_request` row (see `ServerRequest`). Id lists are ranges of `RecordBatch.ids`, and
/// their stored form (a JSON array of strings) is ready in the arena.
package struct ServerRow: Sendable {
    package var line: UInt32
    package var tsMs: Int64
    package var requestId: TextRef
    package var event: ServerEvent
    package var userId: TextRef
    package var deviceId: TextRef
    package var transactionIds: Range<Int32>
    package var transactionIdsJSON: TextRef
    /// nil when the log did not say what was credited.
    package var creditedTransactionIds: Range<Int32>?
    package var creditedTransactionIdsJSON: TextRef
    package var restore: Bool
    package var receiptSha256: TextRef
    package var verifyStatus: Int64?
    package var environment: TextRef
    package var granted: Bool
    package var latencyMs: Int64?

    package init(
        line: UInt32, tsMs: Int64, requestId: TextRef, event: ServerEvent, userId: TextRef, deviceId: TextRef, transactionIds: Range<Int32>,
        transactionIdsJSON: TextRef, creditedTransactionIds: Range<Int32>? = nil, creditedTransactionIdsJSON: TextRef, restore: Bool,
        receiptSha256: TextRef, verifyStatus: Int64? = nil, environment: TextRef, granted: Bool, latencyMs: Int64? = nil
    ) {
        self.line = line
        self.tsMs = tsMs
        self.requestId = requestId
        self.event = event
        self.userId = userId
        self.deviceId = deviceId
        self.transactionIds = transactionIds
        self.transactionIdsJSON = transactionIdsJSON
        self.creditedTransactionIds = creditedTransactionIds
        self.creditedTransactionIdsJSON = creditedTransactionIdsJSON
        self.restore = restore
        self.receiptSha256 = receiptSha256
        self.verifyStatus = verifyStatus
        self.environment = environment
        self.granted = granted
        self.latencyMs = latencyMs
    }
}

/// One `verify_response` row (see `AppleRecord`): a verifyReceipt answer or any other Apple record.
package struct AppleRecordRow: Sendable {
    package var line: UInt32
    package var requestId: TextRef
    package var receivedAtMs: Int64?
    package var status: Int64
    package var environment: TextRef
    package var isRetryable: Bool?
    package var bundleId: TextRef
    package var receiptType: TextRef
    /// The record as received, for formats other than JSON Lines (a JSON Lines record is its line
    /// of the input: `source_file.path:line`).
    package var rawJSON: TextRef
    /// Bytes of the input holding this record (JSON Lines: its line), for readers that want it back.
    package var rawRange: Range<Int>?
    package var source: EvidenceSource
    package var signature: TextRef
    package var signedDateMs: Int64?
    package var errorMessage: TextRef
    package var notificationUUID: TextRef
    package var notificationType: TextRef
    package var notificationSubtype: TextRef
    package var notificationVersion: TextRef
    package var notificationStatus: Int64?
    /// JSON array of strings.
    package var notes: TextRef
    /// Its purchases: a range of `RecordBatch.items`.
    package var items: Range<Int32>
    /// Its `pending_renewal_info`: a range of `RecordBatch.renewals`.
    package var renewals: Range<Int32>

    package init(
        line: UInt32, requestId: TextRef, receivedAtMs: Int64? = nil, status: Int64, environment: TextRef, isRetryable: Bool? = nil,
        bundleId: TextRef, receiptType: TextRef, rawJSON: TextRef, rawRange: Range<Int>? = nil, source: EvidenceSource, signature: TextRef,
        signedDateMs: Int64? = nil, errorMessage: TextRef, notificationUUID: TextRef, notificationType: TextRef,
        notificationSubtype: TextRef, notificationVersion: TextRef, notificationStatus: Int64? = nil, notes: TextRef, items: Range<Int32>,
        renewals: Range<Int32>
    ) {
        self.line = line
        self.requestId = requestId
        self.receivedAtMs = receivedAtMs
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.bundleId = bundleId
        self.receiptType = receiptType
        self.rawJSON = rawJSON
        self.rawRange = rawRange
        self.source = source
        self.signature = signature
        self.signedDateMs = signedDateMs
        self.errorMessage = errorMessage
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.notificationVersion = notificationVersion
        self.notificationStatus = notificationStatus
        self.notes = notes
        self.items = items
        self.renewals = renewals
    }
}

/// One `receipt_transaction` row (see `AppleTransaction`).
package struct AppleTransactionRow: Sendable {
    package var transactionId: TextRef
    package var originalTransactionId: TextRef = .null
    package var productId: TextRef = .null
    package var quantity: Int64? = nil
    package var purchaseDateMs: Int64? = nil
    package var originalPurchaseDateMs: Int64? = nil
    package var expiresDateMs: Int64? = nil
    package var cancellationDateMs: Int64? = nil
    package var cancellationReason: TextRef = .null
    package var webOrderLineItemId: TextRef = .null
    package var inAppOwnershipType: TextRef = .null
    package var isTrialPeriod: Bool? = nil
    /// Comma-separated sections: `in_app,latest_receipt_info`.
    package var sections: TextRef = .null
    package var isInIntroOfferPeriod: Bool? = nil
    package var bundleId: TextRef = .null
    package var environment: TextRef = .null
    package var type: TextRef = .null
    package var revocationType: TextRef = .null
    package var revocationPercentage: Int64? = nil
    package var priceMilliunits: Int64? = nil
    package var currency: TextRef = .null
    package var storefront: TextRef = .null
    package var appAccountToken: TextRef = .null
    package var transactionReason: TextRef = .null
    package var signedDateMs: Int64? = nil
    package var signature: TextRef = .null

    package init(transactionId: TextRef) { self.transactionId = transactionId }
}

/// One `pending_renewal` row (see `PendingRenewal`).
package struct PendingRenewalRow: Sendable {
    package var originalTransactionId: TextRef
    package var productId: TextRef
    package var autoRenewProductId: TextRef
    package var autoRenewStatus: Int64?
    package var expirationIntent: Int64?
    package var isInBillingRetryPeriod: Bool?
    package var gracePeriodExpiresDateMs: Int64?

    package init(
        originalTransactionId: TextRef, productId: TextRef, autoRenewProductId: TextRef, autoRenewStatus: Int64? = nil,
        expirationIntent: Int64? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDateMs: Int64? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
    }
}
