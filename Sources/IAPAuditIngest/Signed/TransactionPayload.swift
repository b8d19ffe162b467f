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
    static func item(_ payload: [String: Any], section: String, path: String) throws -> AppleTransaction {
        let p = payload
        guard let id = try SignedFields.id(p, "transactionId", path: path) else {
            throw IngestError.missingField(SignedFields.name(path, "transactionId"))
        }
        var item = AppleTransaction(transactionId: id, sections: [section])
        item.originalTransactionId = try SignedFields.id(p, "originalTransactionId", path: path)
        item.webOrderLineItemId = try SignedFields.id(p, "webOrderLineItemId", path: path)
        item.productId = try SignedFields.id(p, "productId", path: path)
        item.quantity = try SignedFields.integer(p, "quantity", path: path).map { Int($0) }
        item.purchaseDateMs = try SignedFields.date(p, "purchaseDate", path: path)
        item.originalPurchaseDateMs = try SignedFields.date(p, "originalPurchaseDate", path: path)
        item.expiresDateMs = try SignedFields.date(p, "expiresDate", path: path)
        item.cancellationDateMs = try SignedFields.date(p, "revocationDate", path: path)
        item.cancellationReason = try SignedFields.text(p, "revocationReason", path: path)
        item.revocationType = try SignedFields.text(p, "revocationType", path: path)
        item.revocationPercentage = try SignedFields.integer(p, "revocationPercentage", path: path).map { Int($0) }
        item.inAppOwnershipType = try SignedFields.text(p, "inAppOwnershipType", path: path)
        item.type = try SignedFields.text(p, "type", path: path)
        item.bundleId = try SignedFields.id(p, "bundleId", path: path)
        item.environment = try SignedFields.environment(p, path: path)
        item.priceMilliunits = try SignedFields.integer(p, "price", path: path)
        item.currency = try SignedFields.text(p, "currency", path: path)
        item.storefront = try SignedFields.text(p, "storefront", path: path)
        item.appAccountToken = try SignedFields.text(p, "appAccountToken", path: path)
        item.transactionReason = try SignedFields.text(p, "transactionReason", path: path)
        item.signedDateMs = try SignedFields.date(p, "signedDate", path: path)
        // Offers (`offerType` 1 = introductory offer; `offerDiscountType` FREE_TRIAL, PAY_AS_YOU_GO,
        // PAY_UP_FRONT). Apple omits both when no offer applies. Unreadable values leave them unknown.
        let offerType = try? SignedFields.integer(p, "offerType", path: path)
        let discount = try? SignedFields.text(p, "offerDiscountType", path: path)
        if let offerType {
            item.isInIntroOfferPeriod = offerType == 1
            if let discount { item.isTrialPeriod = discount == "FREE_TRIAL" }
        } else if p["offerType"] == nil {
            item.isInIntroOfferPeriod = false
            item.isTrialPeriod = false
        }
        return item
    }
}
