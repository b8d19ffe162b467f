/// One answer of Apple's legacy `verifyReceipt` endpoint.
///
/// Source: Apple, "verifyReceipt" (App Store Receipts, deprecated 2023) — `responseBody`.
/// Either wrapped by the server as `{"request_id", "received_at", "response": {…}}`
/// (linked to a server-log request) or a bare response document (not linked).
public struct VerifyResponse: Hashable, Sendable {
    public var location: SourceLocation
    /// `request_id` of the server request it answered; nil for a bare response.
    public var requestId: String?
    /// `received_at`: when the server received it, milliseconds since 1970 UTC; nil for bare ones.
    public var receivedAtMs: Int64?
    /// `status`: 0, or 21000–21199 (see `VerifyStatus`). Apple sends a number or a string.
    public var status: Int
    /// `environment`: `Production` or `Sandbox` as Apple sent it; nil when absent.
    public var environment: String?
    /// `is-retryable`: only sent with 211xx statuses.
    public var isRetryable: Bool?
    /// `receipt.bundle_id` (iOS 7+) or `receipt.bid` (iOS 6).
    public var bundleId: String?
    /// `receipt.receipt_type`: `Production`, `ProductionSandbox`, `Sandbox`, `ProductionVPP`…
    public var receiptType: String?
    /// Purchases it lists, de-duplicated by `transaction_id` (first occurrence order).
    public var items: [ReceiptItem]
    /// `pending_renewal_info` entries (auto-renewable subscriptions only).
    public var pendingRenewals: [PendingRenewalInfo] = []
    /// The whole response as Apple sent it (the `response` object of a wrapped line).
    public var rawJSON: String

    public init(
        location: SourceLocation, requestId: String?, receivedAtMs: Int64?, status: Int,
        environment: String?, isRetryable: Bool?, bundleId: String?, receiptType: String?,
        items: [ReceiptItem], rawJSON: String
    ) {
        self.location = location
        self.requestId = requestId
        self.receivedAtMs = receivedAtMs
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.bundleId = bundleId
        self.receiptType = receiptType
        self.items = items
        self.rawJSON = rawJSON
    }

    /// Apple's word on the environment (SEMANTICS rule 2): `environment`, else the receipt's
    /// `receipt_type` (`ProductionSandbox`, `Sandbox`, `ProductionVPPSandbox` mean Sandbox); a 21007
    /// counts as Sandbox.
    /// Returns `Sandbox`, `Production`, another raw value, or nil when Apple said nothing.
    public var effectiveEnvironment: String? {
        if status == 21007 { return "Sandbox" }
        if let environment { return Environment.normalized(environment) }
        guard let receiptType else { return nil }
        return receiptType.hasSuffix("Sandbox") ? "Sandbox" : receiptType
    }

    /// True when Apple said this answer came from the sandbox.
    public var isSandbox: Bool { effectiveEnvironment == "Sandbox" }
}

/// One purchase inside a verify response: an item of `receipt.in_app`, of
/// `latest_receipt_info` (array or single object), `latest_expired_receipt_info`,
/// or an iOS 6 flat `receipt`.
///
/// Dates are milliseconds since 1970 UTC from Apple's `*_ms` fields, else parsed from the
/// text form (`Etc/GMT` or `America/Los_Angeles`).
public struct ReceiptItem: Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    public var quantity: Int?
    public var purchaseDateMs: Int64?
    public var originalPurchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    /// `cancellation_date(_ms)`: Apple refunded or revoked the purchase.
    public var cancellationDateMs: Int64?
    public var cancellationReason: String?
    public var webOrderLineItemId: String?
    /// `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var isTrialPeriod: Bool?
    /// Where in the response it appeared, e.g. `in_app,latest_receipt_info`.
    public var sections: [String]

    public init(transactionId: String, sections: [String]) {
        self.transactionId = transactionId
        self.sections = sections
    }

    /// Fills fields this item lacks from another listing of the same transaction.
    public mutating func merge(_ other: ReceiptItem) {
        originalTransactionId = originalTransactionId ?? other.originalTransactionId
        productId = productId ?? other.productId
        quantity = quantity ?? other.quantity
        purchaseDateMs = purchaseDateMs ?? other.purchaseDateMs
        originalPurchaseDateMs = originalPurchaseDateMs ?? other.originalPurchaseDateMs
        expiresDateMs = expiresDateMs ?? other.expiresDateMs
        cancellationDateMs = cancellationDateMs ?? other.cancellationDateMs
        cancellationReason = cancellationReason ?? other.cancellationReason
        webOrderLineItemId = webOrderLineItemId ?? other.webOrderLineItemId
        inAppOwnershipType = inAppOwnershipType ?? other.inAppOwnershipType
        isTrialPeriod = isTrialPeriod ?? other.isTrialPeriod
        for section in other.sections where !sections.contains(section) { sections.append(section) }
    }
}

/// Environment names as Apple and server logs write them.
public enum Environment {
    /// `Sandbox` for any capitalization of "sandbox" (server logs vary); other values unchanged.
    public static func normalized(_ value: String) -> String {
        value.lowercased() == "sandbox" ? "Sandbox" : value
    }
}
