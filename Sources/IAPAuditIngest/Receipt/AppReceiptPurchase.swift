import IAPAuditModel

/// One in-app purchase of an app receipt (receipt field 17, a nested attribute SET).
///
/// Source: Apple, "Validating receipts on the device" → "Receipt Fields" → "In-App Purchase Receipt
/// Fields". Dates are RFC 3339 IA5Strings in the receipt, kept as text and as milliseconds since
/// 1970 UTC; Apple writes an empty string for a date that does not apply (absent here). Fields
/// Apple does not document (1707, 1709, 1710, 1714–1718, 1720, 1722…) are skipped.
struct AppReceiptPurchase {
    /// 1701 `quantity` (INTEGER).
    var quantity: Int?
    /// 1702 `product_id` (UTF8String).
    var productId: String?
    /// 1703 `transaction_id` (UTF8String); required.
    var transactionId: String
    /// 1705 `original_transaction_id` (UTF8String).
    var originalTransactionId: String?
    /// 1704 `purchase_date` (IA5String).
    var purchaseDate: (text: String, ms: Int64)?
    /// 1706 `original_purchase_date` (IA5String).
    var originalPurchaseDate: (text: String, ms: Int64)?
    /// 1708 `expires_date`: the subscription expiration (IA5String).
    var expiresDate: (text: String, ms: Int64)?
    /// 1711 `web_order_line_item_id` (INTEGER) as digits; nil when Apple wrote 0, as it does for
    /// purchases that are not auto-renewable subscriptions.
    var webOrderLineItemId: String?
    /// 1712 `cancellation_date` (IA5String): Apple refunded or revoked the purchase.
    var cancellationDate: (text: String, ms: Int64)?
    /// 1713 `is_trial_period` (INTEGER, non-zero = true).
    var isTrialPeriod: Bool?
    /// 1719 `is_in_intro_offer_period` (INTEGER, non-zero = true).
    var isInIntroOfferPeriod: Bool?
    /// 1721 `promotional_offer_id` (UTF8String).
    var promotionalOfferId: String?

    /// Decodes the nested SET of field 17.
    /// - Throws: `ReceiptDecodingError` on malformed DER, a field of the wrong ASN.1 type, a bad date,
    ///   or a purchase without a transaction id (`index` is its 0-based position in the receipt).
    init(der: [UInt8], index: Int) throws {
        var transactionId: String?
        for attribute in try ReceiptAttribute.set(in: der, what: "in-app purchase #\(index)") {
            switch attribute.type {
            case 1701: quantity = Int(exactly: try attribute.integer("quantity"))
            case 1702: productId = try attribute.utf8("product id")
            case 1703: transactionId = try attribute.utf8("transaction id")
            case 1704: purchaseDate = try attribute.date("purchase date")
            case 1705: originalTransactionId = try attribute.utf8("original transaction id")
            case 1706: originalPurchaseDate = try attribute.date("original purchase date")
            case 1708: expiresDate = try attribute.date("subscription expiration date")
            case 1711:
                let digits = try attribute.digits("web order line item id")
                webOrderLineItemId = digits == "0" ? nil : digits
            case 1712: cancellationDate = try attribute.date("cancellation date")
            case 1713: isTrialPeriod = try attribute.integer("is trial period") != 0
            case 1719: isInIntroOfferPeriod = try attribute.integer("is in intro offer period") != 0
            case 1721: promotionalOfferId = try attribute.utf8("promotional offer id")
            default: continue
            }
        }
        guard let transactionId, !transactionId.isEmpty else {
            throw ReceiptDecodingError("in-app purchase #\(index) has no transaction id (receipt field 1703)")
        }
        self.transactionId = transactionId
        if originalTransactionId?.isEmpty == true { originalTransactionId = nil }
        if productId?.isEmpty == true { productId = nil }
        if promotionalOfferId?.isEmpty == true { promotionalOfferId = nil }
    }

    /// The purchase as a `AppleTransaction` listed in `section` (`app_receipt`).
    func item(section: String, signature: SignatureStatus) -> AppleTransaction {
        var item = AppleTransaction(transactionId: transactionId, sections: [section])
        item.originalTransactionId = originalTransactionId
        item.productId = productId
        item.quantity = quantity
        item.purchaseDateMs = purchaseDate?.ms
        item.originalPurchaseDateMs = originalPurchaseDate?.ms
        item.expiresDateMs = expiresDate?.ms
        item.cancellationDateMs = cancellationDate?.ms
        item.webOrderLineItemId = webOrderLineItemId
        item.isTrialPeriod = isTrialPeriod
        item.isInIntroOfferPeriod = isInIntroOfferPeriod
        item.signature = signature
        return item
    }

    /// The purchase under verifyReceipt's `in_app` names: text values, dates as the receipt's text
    /// plus `_ms` digits, booleans as `"true"`/`"false"`.
    var jsonObject: [String: Any] {
        var o: [String: Any] = ["transaction_id": transactionId]
        o["quantity"] = quantity.map { String($0) }
        o["product_id"] = productId
        o["original_transaction_id"] = originalTransactionId
        o["web_order_line_item_id"] = webOrderLineItemId
        o["promotional_offer_id"] = promotionalOfferId
        o["is_trial_period"] = isTrialPeriod.map { $0 ? "true" : "false" }
        o["is_in_intro_offer_period"] = isInIntroOfferPeriod.map { $0 ? "true" : "false" }
        let dates = [
            ("purchase_date", purchaseDate), ("original_purchase_date", originalPurchaseDate), ("expires_date", expiresDate),
            ("cancellation_date", cancellationDate),
        ]
        for (name, date) in dates {
            guard let date else { continue }
            o[name] = date.text
            o[name + "_ms"] = String(date.ms)
        }
        return o
    }
}
