import IAPAuditModel

/// Maps a decoded JWS transaction to a `AppleTransaction`.
///
/// Source: Apple, "JWSTransactionDecodedPayload" (App Store Server API). Dates are milliseconds
/// since 1970 UTC (fractions truncated); `price` is in milliunits of `currency` (10990 = 10.99);
/// `revocationPercentage` in thousandths of a percent (50000 = 50 %). Enum values (`type`,
/// `inAppOwnershipType`, `revocationType`, `transactionReason`, `environment`…) are kept raw;
/// fields this tool does not use (Advanced Commerce, commitment info…) are ignored.
enum TransactionPayload {
    /// - Parameters:
    ///   - payload: the decoded payload.
    ///   - section: where it was found: `signed_transaction`, `notification` or `server_api`.
    ///   - path: the payload's field path for error messages (empty at the top level).
    /// - Throws: `IngestError.missingField("transactionId")` when the payload has no transaction id,
    ///   `IngestError.badField` for a field of the wrong type or a date outside 1900–2200.
    static func item(_ payload: any RecordObject, section: String, path: String) throws -> AppleTransaction {
        let p = payload
        var item = AppleTransaction(transactionId: try p.requiredId("transactionId", path: path), sections: [section])
        item.originalTransactionId = try p.id("originalTransactionId", path: path)
        item.webOrderLineItemId = try p.id("webOrderLineItemId", path: path)
        item.productId = try p.id("productId", path: path)
        item.quantity = try p.integer("quantity", path: path).map { Int($0) }
        item.purchaseDateMs = try p.date("purchaseDate", path: path)
        item.originalPurchaseDateMs = try p.date("originalPurchaseDate", path: path)
        item.expiresDateMs = try p.date("expiresDate", path: path)
        item.cancellationDateMs = try p.date("revocationDate", path: path)
        item.cancellationReason = try p.text("revocationReason", path: path)
        item.revocationType = try p.text("revocationType", path: path)
        item.revocationPercentage = try p.integer("revocationPercentage", path: path).map { Int($0) }
        item.inAppOwnershipType = try p.text("inAppOwnershipType", path: path)
        item.type = try p.text("type", path: path)
        item.bundleId = try p.id("bundleId", path: path)
        item.environment = try p.environment(path: path)
        item.priceMilliunits = try p.integer("price", path: path)
        item.currency = try p.text("currency", path: path)
        item.storefront = try p.text("storefront", path: path)
        item.appAccountToken = try p.text("appAccountToken", path: path)
        item.transactionReason = try p.text("transactionReason", path: path)
        item.signedDateMs = try p.date("signedDate", path: path)
        // Offers (`offerType` 1 = introductory offer; `offerDiscountType` FREE_TRIAL, PAY_AS_YOU_GO,
        // PAY_UP_FRONT). Apple omits both when no offer applies. Unreadable values leave them unknown.
        let offerType = try? p.integer("offerType", path: path)
        let discount = try? p.text("offerDiscountType", path: path)
        if let offerType {
            item.isInIntroOfferPeriod = offerType == 1
            if let discount { item.isTrialPeriod = discount == "FREE_TRIAL" }
        } else if !p.has("offerType") {
            item.isInIntroOfferPeriod = false
            item.isTrialPeriod = false
        }
        return item
    }
}
