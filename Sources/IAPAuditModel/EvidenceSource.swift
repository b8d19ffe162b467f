/// Which Apple format a record in `verify_response` came from (column `source`).
public enum EvidenceSource: String, Sendable, CaseIterable {
    /// A legacy `verifyReceipt` response body (unsigned; `signature` is `not_checked`).
    case verifyReceipt = "verify_receipt"
    /// A JWS `signedTransactionInfo` (compact, wrapped with a request id, or decoded payload JSON).
    case signedTransaction = "signed_transaction"
    /// A JWS `signedRenewalInfo`: no purchase, only its `pending_renewal` row.
    case signedRenewalInfo = "signed_renewal_info"
    /// A JWS AppTransaction (the app's own purchase): no in-app purchase.
    case appTransaction = "app_transaction"
    /// An App Store Server API response page or error body (`errorCode` is the record's `status`).
    case serverAPI = "server_api"
    /// An App Store Server Notification V2 (`signedPayload`), or its decoded payload.
    case notificationV2 = "notification_v2"
    /// An App Store Server Notification V1 (status update) body (unsigned).
    case notificationV1 = "notification_v1"
    /// A PKCS#7 app receipt (iOS 7+), base64 or DER, as a client posts it.
    case appReceipt = "app_receipt"
    /// An iOS 6-style transaction receipt (base64 of an old-style plist).
    case transactionReceipt = "transaction_receipt"

    /// True for sources Apple signs (JWS, notifications V2, app and transaction receipts).
    public var isSigned: Bool {
        switch self {
        case .verifyReceipt, .notificationV1, .serverAPI: return false
        default: return true
        }
    }
}

/// The notification fields of an App Store Server Notification (V2 `responseBodyV2DecodedPayload`,
/// or V1 `notification_type`).
///
/// Source: Apple, "App Store Server Notifications V2" → `responseBodyV2DecodedPayload`; V1 →
/// `responseBody`. Values are kept raw: types Apple adds later still decode.
public struct NotificationInfo: Hashable, Sendable {
    /// `notificationUUID` (V2); nil for V1, which has none. Apple retries a delivery with the same UUID.
    public var notificationUUID: String?
    /// `notificationType` (V2: `REFUND`, `DID_RENEW`, `TEST`…) or `notification_type` (V1: `CANCEL`, `DID_RENEW`…).
    public var notificationType: String
    /// `subtype` (V2 only): `INITIAL_BUY`, `SUMMARY`, `VOLUNTARY`…
    public var subtype: String?
    /// `version` (V2: `2.0`).
    public var version: String?
    /// `data.status` (V2): the subscription status 1–5 at signing, when sent.
    public var status: Int?
    /// `summary` present (V2 RENEWAL_EXTENSION/SUMMARY bodies without `data`).
    public var hasSummary: Bool = false

    public init(notificationUUID: String?, notificationType: String, subtype: String?, version: String? = nil) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.version = version
    }
}
