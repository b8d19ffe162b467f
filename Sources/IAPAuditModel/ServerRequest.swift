/// What a server-log record is: a verification request (the default) or a revoke.
public enum ServerEvent: String, Sendable {
    case verify, revoke
}

/// One record of the app server's transaction log: a verification request it handled,
/// or (`event = revoke`) an entitlement it took back.
///
/// Source: the app server's log (JSON Lines or CSV), fields `ts`, `request_id`, `user_id`,
/// `device_id`, `transaction_ids` (array; `;`-separated in CSV), `restore`, `receipt_sha256`,
/// `verify_status` (null when Apple never answered), `environment`, `granted`, `latency_ms`,
/// `credited_transaction_ids`, `event`.
public struct ServerRequest: Hashable, Sendable {
    public var location: SourceLocation
    /// `ts`: milliseconds since 1970-01-01 UTC.
    public var tsMs: Int64
    public var requestId: String
    public var event: ServerEvent
    public var userId: String?
    public var deviceId: String?
    /// Ids the client posted, exact text (sometimes original transaction ids).
    public var transactionIds: [String]
    /// What the server actually credited, when it logs it.
    public var creditedTransactionIds: [String]?
    public var restore: Bool
    public var receiptSha256: String?
    /// The status the server logged; never proof (SEMANTICS rule 3).
    public var verifyStatus: Int?
    /// The environment the server logged as having answered.
    public var environment: String?
    public var granted: Bool
    /// Round trip to Apple in milliseconds.
    public var latencyMs: Int64?

    public init(
        location: SourceLocation, tsMs: Int64, requestId: String, event: ServerEvent,
        userId: String?, deviceId: String?, transactionIds: [String],
        creditedTransactionIds: [String]?, restore: Bool, receiptSha256: String?,
        verifyStatus: Int?, environment: String?, granted: Bool, latencyMs: Int64?
    ) {
        self.location = location
        self.tsMs = tsMs
        self.requestId = requestId
        self.event = event
        self.userId = userId
        self.deviceId = deviceId
        self.transactionIds = transactionIds
        self.creditedTransactionIds = creditedTransactionIds
        self.restore = restore
        self.receiptSha256 = receiptSha256
        self.verifyStatus = verifyStatus
        self.environment = environment
        self.granted = granted
        self.latencyMs = latencyMs
    }
}
