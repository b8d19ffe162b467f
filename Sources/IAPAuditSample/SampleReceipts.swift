import IAPAuditModel

/// One App Store transaction as the sample knows it; rendered as a receipt item.
struct SampleTransaction {
    /// `transaction_id`: 16 digits, or 19 digits above 2^53 for the exactness cases.
    var id: String
    var originalId: String
    var productId: String
    /// Seconds since 1970 UTC.
    var purchasedAt: Int64
    var originalPurchasedAt: Int64
    /// Subscriptions only.
    var expiresAt: Int64? = nil
    var webOrderLineItemId: String? = nil
    /// Set on the copy listed after Apple refunded it.
    var cancelledAt: Int64? = nil
    var cancellationReason: String? = nil
    /// `in_app_ownership_type` `FAMILY_SHARED` instead of `PURCHASED`.
    var familyShared = false
    /// Units bought (`quantity`).
    var quantity = 1
    /// Where it was bought (alpha-3): what Apple's reports say. A JWS writes it as `storefront`; a
    /// verifyReceipt item does not, so only the generator knows it.
    var storefront = "USA"
    /// A free trial (`is_trial_period`, JWS `offerDiscountType` FREE_TRIAL).
    var trial = false
    /// Write `transaction_id` and `original_transaction_id` as JSON numbers, not strings.
    var idsAsNumbers = false

    /// A copy carrying Apple's refund fields.
    func cancelled(at t: Int64, reason: String) -> SampleTransaction {
        var copy = self
        copy.cancelledAt = t
        copy.cancellationReason = reason
        return copy
    }
}

/// How one status-0 verifyReceipt answer is shaped.
struct ReceiptStyle {
    var status = 0
    /// `"status": "0"` instead of `0` (Apple sent both).
    var statusAsText = false
    /// Top-level `environment`; nil leaves the field out (the receipt type then tells).
    var environment: String? = "Production"
    var receiptType = "Production"
    var bundleId = SampleCatalog.bundleId
    var latest = LatestReceiptInfo.omitted

    enum LatestReceiptInfo { case omitted, array, object }

    static let production = ReceiptStyle()
    static let sandbox = ReceiptStyle(environment: "Sandbox", receiptType: "ProductionSandbox")
}

/// Builders of Apple's verifyReceipt response bodies (Apple's field names and text forms).
enum SampleApple {
    /// One `in_app` / `latest_receipt_info` item.
    static func item(_ tx: SampleTransaction) -> SampleJSON {
        var o = SampleObject()
        o.add("quantity", .string(String(tx.quantity)))
        o.add("product_id", .string(tx.productId))
        o.add("transaction_id", tx.idsAsNumbers ? .number(tx.id) : .string(tx.id))
        o.add("original_transaction_id", tx.idsAsNumbers ? .number(tx.originalId) : .string(tx.originalId))
        addDate(&o, "purchase_date", tx.purchasedAt)
        addDate(&o, "original_purchase_date", tx.originalPurchasedAt)
        if let expires = tx.expiresAt {
            addDate(&o, "expires_date", expires)
            o.add("web_order_line_item_id", .text(tx.webOrderLineItemId))
            o.add("is_in_intro_offer_period", .string("false"))
        }
        o.add("is_trial_period", .string(tx.trial ? "true" : "false"))
        if let cancelled = tx.cancelledAt {
            addDate(&o, "cancellation_date", cancelled)
            o.add("cancellation_reason", .text(tx.cancellationReason))
        }
        o.add("in_app_ownership_type", .string(tx.familyShared ? "FAMILY_SHARED" : "PURCHASED"))
        return o.json
    }

    /// A full iOS 7+ answer: `status`, `environment`, `receipt` with `in_app`, and optionally
    /// `latest_receipt_info` repeating the items (array, or the first item as a single object).
    static func receiptResponse(
        items: [SampleTransaction], installedAt: Int64, downloadId: Int64, createdAt: Int64, style: ReceiptStyle
    ) -> SampleJSON {
        var receipt = SampleObject()
        receipt.add("receipt_type", .string(style.receiptType))
        receipt.add("adam_id", .int(SampleCatalog.adamId))
        receipt.add("app_item_id", .int(SampleCatalog.adamId))
        receipt.add("bundle_id", .string(style.bundleId))
        receipt.add("application_version", .string("412"))
        receipt.add("download_id", .int(downloadId))
        receipt.add("version_external_identifier", .int(861_234_567))
        addDate(&receipt, "receipt_creation_date", createdAt)
        addDate(&receipt, "request_date", createdAt + 1)
        addDate(&receipt, "original_purchase_date", installedAt)
        receipt.add("original_application_version", .string("388"))
        receipt.add("in_app", .array(items.map(item)))

        var o = SampleObject()
        o.add("status", style.statusAsText ? .string(String(style.status)) : .int(Int64(style.status)))
        o.add("environment", ifPresent: style.environment.map { .string($0) })
        o.add("receipt", receipt.json)
        switch style.latest {
        case .omitted: break
        case .array: o.add("latest_receipt_info", .array(items.map(item)))
        case .object: if let first = items.first { o.add("latest_receipt_info", item(first)) }
        }
        return o.json
    }

    /// An iOS 6 transaction-receipt answer: a flat `receipt` (`bid`, `bvrs`, `item_id`, one
    /// purchase) and no `in_app`. Status 21006 bodies look the same.
    static func ios6Response(_ tx: SampleTransaction, bundleId: String, status: Int) -> SampleJSON {
        var receipt = SampleObject()
        receipt.add("quantity", .string("1"))
        receipt.add("product_id", .string(tx.productId))
        receipt.add("transaction_id", .string(tx.id))
        receipt.add("original_transaction_id", .string(tx.originalId))
        addDate(&receipt, "purchase_date", tx.purchasedAt)
        addDate(&receipt, "original_purchase_date", tx.originalPurchasedAt)
        receipt.add("item_id", .string(String(SampleCatalog.itemId(tx.productId))))
        receipt.add("bid", .string(bundleId))
        receipt.add("bvrs", .string("412"))
        var o = SampleObject()
        o.add("status", .int(Int64(status)))
        o.add("receipt", receipt.json)
        return o.json
    }

    /// An error answer: just `{"status": N}`, with `is-retryable` when given (211xx).
    static func errorResponse(_ status: Int, retryable: Bool? = nil) -> SampleJSON {
        var o = SampleObject()
        o.add("status", .int(Int64(status)))
        o.add("is-retryable", ifPresent: retryable.map { .bool($0) })
        return o.json
    }

    /// `<name>`, `<name>_ms`, `<name>_pst` as Apple writes them.
    private static func addDate(_ o: inout SampleObject, _ name: String, _ t: Int64) {
        o.add(name, .string(SampleClock.gmt(t)))
        o.add(name + "_ms", .string(SampleClock.ms(t)))
        o.add(name + "_pst", .string(SampleClock.pacific(t)))
    }
}
