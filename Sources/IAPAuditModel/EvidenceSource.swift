/// Which Apple format a record in `apple_record` came from (column `source`).
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
