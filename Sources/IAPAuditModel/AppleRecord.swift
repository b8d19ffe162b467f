/// One answer of Apple's legacy `verifyReceipt` endpoint.
///
/// Source: Apple, "verifyReceipt" (App Store Receipts, deprecated 2023) — `responseBody`.
/// Either wrapped by the server as `{"request_id", "received_at", "response": {…}}`
/// (linked to a server-log request) or a bare response document (not linked).
public struct AppleRecord: Hashable, Sendable {
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
    public var items: [AppleTransaction]
    /// `pending_renewal_info` entries (auto-renewable subscriptions only).
    public var pendingRenewals: [PendingRenewal] = []
    /// The whole response as Apple sent it (the `response` object of a wrapped line).
    public var rawJSON: String
    /// The Apple format this record was read from; `verifyReceipt` unless a signed-format reader made it.
    public var source: EvidenceSource = .verifyReceipt
    /// The record's own signature (for a notification: combined with its nested JWS).
    public var signature: SignatureStatus = .notChecked
    /// `signedDate` of a JWS payload or notification, or a receipt's creation date: milliseconds since 1970 UTC.
    public var signedDateMs: Int64?
    /// Set for notifications (V1 and V2).
    public var notification: NotificationInfo?
    /// `errorMessage` of an App Store Server API error body (`status` holds its `errorCode`).
    public var errorMessage: String?
    /// What could not be read inside the record without rejecting it, e.g. a nested
    /// `signedTransactionInfo` that is a placeholder, not a compact JWS.
    public var notes: [String] = []

    public init(
        location: SourceLocation, requestId: String?, receivedAtMs: Int64?, status: Int,
        environment: String?, isRetryable: Bool?, bundleId: String?, receiptType: String?,
        items: [AppleTransaction], rawJSON: String
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
        var environment = environment ?? ""
        var receiptType = receiptType ?? ""
        return environment.withUTF8 { e in
            receiptType.withUTF8 { t in
                let (code, raw) = EnvironmentCode.effective(
                    status: Int64(status), environment: self.environment == nil ? nil : e, receiptType: self.receiptType == nil ? nil : t)
                return code.name ?? raw.map { String(decoding: $0, as: UTF8.self) }
            }
        }
    }

    /// True when Apple said this answer came from a non-production environment: `Sandbox`, `Xcode`,
    /// `LocalTesting`, or any value other than `Production` (nil, Apple saying nothing, is not).
    public var isSandbox: Bool { effectiveEnvironment.map { $0 != "Production" } ?? false }
}

/// One purchase inside a verify response: an item of `receipt.in_app`, of
/// `latest_receipt_info` (array or single object), `latest_expired_receipt_info`,
/// or an iOS 6 flat `receipt`.
///
/// Dates are milliseconds since 1970 UTC from Apple's `*_ms` fields, else parsed from the
/// text form (`Etc/GMT` or `America/Los_Angeles`).
public struct AppleTransaction: Hashable, Sendable {
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
    /// `isInIntroOfferPeriod` / `is_in_intro_offer_period` (receipt field 1719).
    public var isInIntroOfferPeriod: Bool?
    /// JWS `bundleId` (the transaction's own); receipts carry it on the response.
    public var bundleId: String?
    /// JWS `environment` of this transaction (`Production`, `Sandbox`, `Xcode`, `LocalTesting`, raw otherwise).
    public var environment: String?
    /// JWS `type`: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`.
    public var type: String?
    /// JWS `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE` (raw when unknown).
    public var revocationType: String?
    /// JWS `revocationPercentage`: the refunded share in thousandths of a percent (50000 = 50 %).
    public var revocationPercentage: Int?
    /// JWS `price`: milliunits of `currency` (10990 = 10.99).
    public var priceMilliunits: Int64?
    /// JWS `currency`: ISO 4217 code.
    public var currency: String?
    /// JWS `storefront`: ISO 3166-1 alpha-3 country code.
    public var storefront: String?
    /// JWS `appAccountToken`: the UUID the app attached to the purchase.
    public var appAccountToken: String?
    /// JWS `transactionReason`: `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// JWS `signedDate`: milliseconds since 1970 UTC.
    public var signedDateMs: Int64?
    /// The signature of the JWS or receipt this item came from (`not_checked` for unsigned sources).
    public var signature: SignatureStatus = .notChecked
    /// Where in the response it appeared, e.g. `in_app,latest_receipt_info`.
    public var sections: [String]

    public init(transactionId: String, sections: [String]) {
        self.transactionId = transactionId
        self.sections = sections
    }

    /// Fills fields this item lacks from another listing of the same transaction.
    public mutating func merge(_ other: AppleTransaction) {
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
        isInIntroOfferPeriod = isInIntroOfferPeriod ?? other.isInIntroOfferPeriod
        bundleId = bundleId ?? other.bundleId
        environment = environment ?? other.environment
        type = type ?? other.type
        revocationType = revocationType ?? other.revocationType
        revocationPercentage = revocationPercentage ?? other.revocationPercentage
        priceMilliunits = priceMilliunits ?? other.priceMilliunits
        currency = currency ?? other.currency
        storefront = storefront ?? other.storefront
        appAccountToken = appAccountToken ?? other.appAccountToken
        transactionReason = transactionReason ?? other.transactionReason
        signedDateMs = signedDateMs ?? other.signedDateMs
        signature = signature.combined(with: other.signature)
        for section in other.sections where !sections.contains(section) { sections.append(section) }
    }
}

/// Environment names as Apple and server logs write them.
public enum Environment {
    /// Apple's spelling for any capitalization of `Sandbox`, `Production`, `Xcode`, `LocalTesting`,
    /// and V1's `PROD` (→ `Production`); other values unchanged (kept raw, e.g. `LocalTestingxxx`).
    public static func normalized(_ value: String) -> String {
        var value = value
        return value.withUTF8 { EnvironmentCode.normalizing($0).name } ?? value
    }
}
