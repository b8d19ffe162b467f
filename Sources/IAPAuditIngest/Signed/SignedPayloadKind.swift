import IAPAuditModel

/// What a JWS payload (or its decoded JSON) is, recognized from Apple's field names.
///
/// Source: Apple, "JWSTransactionDecodedPayload", "JWSRenewalInfoDecodedPayload", "AppTransaction",
/// "responseBodyV2DecodedPayload". Renewal info and app transactions may also carry
/// `appTransactionId`, so `transactionId` decides first, then the renewal fields.
enum SignedPayloadKind: Equatable {
    /// `notificationType` present: an App Store Server Notification V2 payload.
    case notification
    /// `transactionId` present: a signed transaction.
    case transaction
    /// Renewal fields (`autoRenewProductId`, `autoRenewStatus`, `renewalDate`…) without `transactionId`.
    case renewalInfo
    /// `receiptType` or `appTransactionId` without renewal fields: the app's own purchase.
    case appTransaction

    static let renewalKeys = [
        "autoRenewProductId", "autoRenewStatus", "renewalDate", "expirationIntent", "isInBillingRetryPeriod",
        "gracePeriodExpiresDate", "priceIncreaseStatus", "renewalPrice",
    ]
    private static let transactionKeys = ["originalTransactionId", "productId", "bundleId", "purchaseDate", "signedDate"]
    private static let renewalContextKeys = ["originalTransactionId", "productId", "signedDate", "environment"]
    private static let appTransactionKeys = ["applicationVersion", "originalApplicationVersion", "receiptCreationDate", "bundleId"]
    /// Keys of our own records, verifyReceipt and client reports: never a decoded Apple payload.
    private static let foreignKeys = ["request_id", "state", "user_id", "transaction_id", "status", "receipt", "notification_type"]

    /// The kind of a signed payload, trusting Apple's signature for what it is; nil when it has none
    /// of the telling fields (Apple's `transactionInfo` sample carries only `environment`, `bundleId`,
    /// `signedDate`).
    static func ofSigned(_ payload: any RecordObject) -> SignedPayloadKind? {
        if payload.string("notificationType") != nil { return .notification }
        if payload.has("transactionId") { return .transaction }
        if renewalKeys.contains(where: { payload.has($0) }) { return .renewalInfo }
        if payload.has("receiptType") || payload.has("appTransactionId") { return .appTransaction }
        return nil
    }

    /// The kind of an unsigned JSON object taken for a decoded payload, stricter than `ofSigned`:
    /// it must also have a field that goes with the telling one, and none of our log or verifyReceipt keys.
    static func ofDecoded(_ o: any RecordObject) -> SignedPayloadKind? {
        if foreignKeys.contains(where: { o.has($0) }) { return nil }
        let hasAny = { (keys: [String]) in keys.contains { o.has($0) } }
        if o.string("notificationType") != nil { return .notification }
        if o.has("transactionId") { return hasAny(transactionKeys) ? .transaction : nil }
        if hasAny(renewalKeys) { return hasAny(renewalContextKeys) ? .renewalInfo : nil }
        if o.has("receiptType") || (o.has("appTransactionId") && hasAny(appTransactionKeys)) { return .appTransaction }
        return nil
    }
}
