import IAPAuditModel

/// Recognizes what one JSON object is from its keys.
package enum RecordShape: Hashable {
    /// What the skip note of a JSON object no reader knows says (`JSON object of an unrecognized shape (keys: …)`).
    package static let unrecognizedShape = "of an unrecognized shape"

    case clientReport, serverRequest, wrappedVerifyResponse, bareVerifyResponse
    /// `{"request_id", "received_at", "signed_transaction": "<compact JWS>"}`: a JWS the server fetched
    /// or received for a request.
    case wrappedSignedTransaction
    /// `{"order_id", "received_at", "response": {…}}`: an App Store Server API Look Up Order ID answer
    /// fetched for an Apple order id (the id on the customer's invoice), kept with that id.
    case wrappedOrderLookup
    /// `{"transaction_id", "received_at", "environment", "response": {…}}`: an App Store Server API Get Transaction Info
    /// answer (or its error body) kept with the transaction id asked and the environment asked (`iap-audit ask-apple`).
    case wrappedTransactionLookup
    /// An app receipt as posted: `{"request_id", "received_at", "receipt_data"}`, a Unity IAP wrapper or
    /// a purchase object holding `transactionReceipt`.
    case postedReceipt
    /// A signed-format body or decoded payload (Server API, notifications, JWS payload JSON) of this kind.
    case signed(SourceKind)
    /// Recognized, but not evidence this version reads: the description says what it is.
    case unsupported(String)
    case auditConfig
    case unknown(String)

    /// A body with `status` and none of the App Store Server API's keys: Apple's verifyReceipt answer
    /// (or an error body of it). Shared with the JSON Lines fast path, which asks a lazy record.
    static func isVerifyReceiptBody(has: (String) -> Bool) -> Bool {
        has("status") && !has("signedTransactions") && !has("errorCode") && !has("signedTransactionInfo")
    }

    /// - Parameter o: a JSON object; `has` is true for a field present, null or not.
    static func of(_ o: any RecordObject) -> RecordShape {
        let has = { (key: String) in o.has(key) }
        if has("order_id") && has("response") { return .wrappedOrderLookup }
        if has("transaction_id") && has("response") && !has("request_id") { return .wrappedTransactionLookup }
        if has("request_id") && has("response") { return .wrappedVerifyResponse }
        if has("request_id") && has("signed_transaction") { return .wrappedSignedTransaction }
        if AppReceiptReader.isWrapper(o) { return .postedReceipt }
        if has("request_id") && has("transaction_ids") { return .serverRequest }
        if has("state") && (has("transaction_id") || has("user_id")) { return .clientReport }
        if !has("request_id"), let kind = SignedRecordReader.kind(of: o) { return .signed(kind) }
        if isVerifyReceiptBody(has: has) {
            if has("receipt") || has("latest_receipt_info") || has("environment") { return .bareVerifyResponse }
            if let code = try? o.integer("status"), code == 0 || (21000...21199).contains(code) {
                return .bareVerifyResponse
            }
        }
        if has("notification_type") { return .unsupported("App Store Server Notification V1 of an unexpected shape (not read)") }
        if has("signedPayload") {
            return .unsupported("signed App Store Server Notification V2 or notification status of an unexpected shape (not read)")
        }
        if has("notificationType") {
            return .unsupported("decoded App Store Server Notification V2 payload of an unexpected shape (not read)")
        }
        if has("signedTransactions") || has("signedTransactionInfo") || has("errorCode") || has("notificationHistory")
            || (has("data") && has("appAppleId")) || (has("originalTransactionId") && has("success"))
        {
            return .unsupported("App Store Server API response of an unexpected shape (not read)")
        }
        if has("autoRenewProductId") || has("expirationIntent") {
            return .unsupported("decoded JWS renewal info payload of an unexpected shape (not read)")
        }
        if has("transactionId") || has("originalTransactionId") {
            return .unsupported("decoded JWS transaction payload of an unexpected shape (not read)")
        }
        if has("appTransactionId") || has("receiptType") {
            return .unsupported("decoded JWS app transaction payload of an unexpected shape (not read)")
        }
        if has("bundle_ids") || has("sandbox_allowlist") || (has("products") && isObject(o.field("products"))) {
            return .auditConfig
        }
        if has("products") && (has("settings") || has("identifier")) { return .unsupported("StoreKit configuration file (not evidence)") }
        if has("Store") && has("Payload") {
            return .unsupported("Unity IAP receipt wrapper posted by a client of an unexpected shape (not read)")
        }
        if has("transactionReceipt") {
            return .unsupported("client-posted purchase object with a transaction receipt of an unexpected shape (not read)")
        }
        if has("findings") && has("planted") { return .unsupported("iap-audit sample answer key (not evidence)") }
        if has("errors") { return .unsupported("App Store Connect API error body (not evidence)") }
        return .unknown("JSON object \(unrecognizedShape) (keys: \(o.fieldNames.sorted().prefix(8).joined(separator: ", ")))")
    }

    private static func isObject(_ value: FieldValue?) -> Bool {
        guard case .object? = value else { return false }
        return true
    }

    var kind: SourceKind {
        switch self {
        case .clientReport: return .clientReport
        case .serverRequest: return .serverLog
        case .wrappedVerifyResponse, .bareVerifyResponse: return .verifyResponse
        case .wrappedSignedTransaction: return .signedTransaction
        case .wrappedOrderLookup, .wrappedTransactionLookup: return .serverAPIResponse
        case .postedReceipt: return .appReceipt
        case .signed(let kind): return kind
        default: return .other
        }
    }
}
