/// One entry of a verifyReceipt response's `pending_renewal_info`: what will happen at the next
/// renewal of an auto-renewable subscription.
///
/// Source: Apple, "verifyReceipt" → `responseBody.Pending_renewal_info`. Dates are milliseconds
/// since 1970 UTC.
public struct PendingRenewal: Hashable, Sendable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    /// `auto_renew_status`: 1 renews, 0 the customer turned renewal off.
    public var autoRenewStatus: Int?
    /// `expiration_intent`: 1 cancelled, 2 billing error, 3 price increase not agreed, 4 product
    /// unavailable, 5 unknown.
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDateMs: Int64?

    public init() {}
}
