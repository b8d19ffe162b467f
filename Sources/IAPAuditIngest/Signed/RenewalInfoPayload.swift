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
        try pendingRenewal(payload, path: path) { try payload.date($0, path: path) }
    }

    /// A `PendingRenewal` from an object naming its fields Apple's way: as a JWS does (`originalTransactionId`), or with
    /// `snakeCase` as verifyReceipt's `pending_renewal_info` does (`original_transaction_id`). `date` reads the grace
    /// period's end from the field so named (milliseconds since 1970 UTC).
    static func pendingRenewal(
        _ o: any RecordObject, path: String, snakeCase: Bool = false, date: (String) throws -> Int64?
    ) throws -> PendingRenewal {
        func key(_ name: String) -> String { snakeCase ? Self.snakeCase(name) : name }
        var info = PendingRenewal()
        info.originalTransactionId = try o.id(key("originalTransactionId"), path: path)
        info.productId = try o.id(key("productId"), path: path)
        info.autoRenewProductId = try o.id(key("autoRenewProductId"), path: path)
        info.autoRenewStatus = try o.integer(key("autoRenewStatus"), path: path).map { Int($0) }
        info.expirationIntent = try o.integer(key("expirationIntent"), path: path).map { Int($0) }
        info.isInBillingRetryPeriod = try o.bool(key("isInBillingRetryPeriod"), path: path)
        info.gracePeriodExpiresDateMs = try date(key("gracePeriodExpiresDate"))
        return info
    }

    /// `autoRenewStatus` → `auto_renew_status`: an underscore before each capital, lowercased.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { text, c in text += c.isUppercase ? "_" + c.lowercased() : String(c) }
    }
}
