import IAPAuditModel

/// Maps a decoded JWS renewal info to a `PendingRenewal`.
///
/// Source: Apple, "JWSRenewalInfoDecodedPayload" (App Store Server API). `autoRenewStatus` 1 renews,
/// 0 the customer turned renewal off; `expirationIntent` 1–5 as in verifyReceipt;
/// `gracePeriodExpiresDate` in milliseconds since 1970 UTC (fraction truncated). Other fields
/// (renewal price, offers, Advanced Commerce…) are ignored.
enum RenewalInfoPayload {
    /// - Throws: `IngestError.badField` for a field of the wrong type or a date outside 1900–2200.
    static func pendingRenewal(_ payload: any RecordObject, path: String) throws -> PendingRenewal {
        let p = payload
        var info = PendingRenewal()
        info.originalTransactionId = try p.id("originalTransactionId", path: path)
        info.productId = try p.id("productId", path: path)
        info.autoRenewProductId = try p.id("autoRenewProductId", path: path)
        info.autoRenewStatus = try p.integer("autoRenewStatus", path: path).map { Int($0) }
        info.expirationIntent = try p.integer("expirationIntent", path: path).map { Int($0) }
        info.isInBillingRetryPeriod = try p.bool("isInBillingRetryPeriod", path: path)
        info.gracePeriodExpiresDateMs = try p.date("gracePeriodExpiresDate", path: path)
        return info
    }
}
