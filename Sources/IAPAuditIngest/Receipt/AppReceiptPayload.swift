import IAPAuditModel

/// The decoded payload of a PKCS#7 app receipt (iOS 7+): the attribute SET inside the envelope.
///
/// Source: Apple, "Validating receipts on the device" → "Receipt Fields" (App Receipt Fields:
/// 2 bundle id, 3 application version, 12 receipt creation date, 17 in-app purchase, 19 original
/// application version, 21 receipt expiration date); field 0 (the receipt type, e.g. `Production`,
/// `ProductionSandbox`, `Xcode`) is the one verifyReceipt reports as `receipt_type`. Other field
/// types (opaque value, SHA-1 hash, Apple-internal ones) are skipped.
struct AppReceiptPayload {
    /// 0 `receipt_type` (UTF8String): `Production`, `ProductionSandbox`, `Xcode`, `ProductionVPP`…
    var receiptType: String?
    /// 2 `bundle_id` (UTF8String).
    var bundleId: String?
    /// 3 `application_version` (UTF8String, `CFBundleVersion`).
    var applicationVersion: String?
    /// 19 `original_application_version` (UTF8String).
    var originalApplicationVersion: String?
    /// 12 `receipt_creation_date` (IA5String, RFC 3339) and its milliseconds since 1970 UTC.
    var creationDate: (text: String, ms: Int64)?
    /// 21 `expiration_date` (IA5String) as written; Xcode writes the sentinel `4001-01-01T00:00:00Z`.
    var expirationDateText: String?
    /// 21 in milliseconds since 1970 UTC; nil when absent or outside 1900–2200 (the Xcode sentinel).
    var expirationDateMs: Int64?
    /// 17 in-app purchases, in receipt order (not de-duplicated).
    var purchases: [AppReceiptPurchase] = []

    /// Decodes the payload (the PKCS#7 `eContent`).
    /// - Throws: `ReceiptDecodingError` on malformed DER, a field of the wrong type, a bad creation
    ///   date, or an in-app purchase that cannot be read.
    init(der: [UInt8]) throws {
        for attribute in try ReceiptAttribute.set(in: der, what: "the app receipt payload") {
            switch attribute.type {
            case 0: receiptType = try attribute.utf8("receipt type")
            case 2: bundleId = try attribute.utf8("bundle id")
            case 3: applicationVersion = try attribute.utf8("application version")
            case 12: creationDate = try attribute.date("receipt creation date")
            case 17: purchases.append(try AppReceiptPurchase(der: attribute.value, index: purchases.count))
            case 19: originalApplicationVersion = try attribute.utf8("original application version")
            case 21:
                let text = try attribute.ia5("receipt expiration date")
                expirationDateText = text.isEmpty ? nil : text
                expirationDateMs = Timestamp.parseMs(text)
            default: continue
            }
        }
    }

    /// The environment a receipt type implies: `ProductionSandbox`, `Sandbox` (any `…Sandbox`) →
    /// `Sandbox`; `Production`, `ProductionVPP` → `Production`; `Xcode` → `Xcode`; nil otherwise.
    static func environment(receiptType: String?) -> String? {
        guard let receiptType else { return nil }
        if receiptType.hasSuffix("Sandbox") { return "Sandbox" }
        switch receiptType {
        case "Production", "ProductionVPP": return "Production"
        case "Xcode": return "Xcode"
        default: return nil
        }
    }

    /// The receipt under verifyReceipt's `receipt` names (`bundle_id`, `receipt_type`,
    /// `receipt_creation_date_ms`, `in_app`…), text values as Apple's JSON gives them.
    var jsonObject: [String: Any] {
        var o: [String: Any] = ["in_app": purchases.map(\.jsonObject)]
        o["receipt_type"] = receiptType
        o["bundle_id"] = bundleId
        o["application_version"] = applicationVersion
        o["original_application_version"] = originalApplicationVersion
        if let creationDate {
            o["receipt_creation_date"] = creationDate.text
            o["receipt_creation_date_ms"] = String(creationDate.ms)
        }
        o["expiration_date"] = expirationDateText
        o["expiration_date_ms"] = expirationDateMs.map { String($0) }
        return o
    }
}
