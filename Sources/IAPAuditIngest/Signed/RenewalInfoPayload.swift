import IAPAuditModel

/// Maps a decoded JWS renewal info to a `PendingRenewal`.
///
/// Source: Apple, "JWSRenewalInfoDecodedPayload" (App Store Server API). `autoRenewStatus` 1 renews,
/// 0 the customer turned renewal off; `expirationIntent` 1–5 as in verifyReceipt;
/// `gracePeriodExpiresDate` in milliseconds since 1970 UTC (fraction truncated). Other fields
/// (renewal price, offers, Advanced Commerce…) are ignored.
enum RenewalInfoPayload {
    /// - Throws: `IngestError.badField` for a field of the wrong type or a date outside 1900–2200.
    static func pendingRenewal(_ payload: [String: Any], path: String) throws -> PendingRenewal {
        let p = payload
        var info = PendingRenewal()
        info.originalTransactionId = try SignedFields.id(p, "originalTransactionId", path: path)
        info.productId = try SignedFields.id(p, "productId", path: path)
        info.autoRenewProductId = try SignedFields.id(p, "autoRenewProductId", path: path)
        info.autoRenewStatus = try SignedFields.integer(p, "autoRenewStatus", path: path).map { Int($0) }
        info.expirationIntent = try SignedFields.integer(p, "expirationIntent", path: path).map { Int($0) }
        info.isInBillingRetryPeriod = try JSONField.bool(
            p["isInBillingRetryPeriod"], field: SignedFields.name(path, "isInBillingRetryPeriod"))
        info.gracePeriodExpiresDateMs = try SignedFields.date(p, "gracePeriodExpiresDate", path: path)
        return info
    }
}
