/// StoreKit transaction states a client reports (`SKPaymentTransactionState`).
public enum ClientState: String, Sendable, CaseIterable {
    case purchasing, purchased, failed, deferred, restored
}

/// One transaction as the iOS client reported it to the app's backend.
///
/// Source: the app's client report log (JSON Lines or CSV), fields
/// `ts`, `user_id`, `device_id`, `transaction_id`, `original_transaction_id`,
/// `product_id`, `state`, `error_code` (SKError code; 2 = cancelled), `quantity`.
public struct ClientReport: Hashable, Sendable {
    public var location: SourceLocation
    /// `ts`: milliseconds since 1970-01-01 UTC.
    public var tsMs: Int64
    public var userId: String?
    public var deviceId: String?
    /// `transaction_id`: exact text; nil for failed and deferred transactions.
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    public var state: ClientState
    public var errorCode: Int?
    public var quantity: Int?

    public init(
        location: SourceLocation, tsMs: Int64, userId: String?, deviceId: String?,
        transactionId: String?, originalTransactionId: String?, productId: String?,
        state: ClientState, errorCode: Int?, quantity: Int?
    ) {
        self.location = location
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
