/// Recognizes what one JSON object is from its keys.
enum RecordShape: Equatable {
    case clientReport, serverRequest, wrappedVerifyResponse, bareVerifyResponse
    /// Recognized, but not evidence this version reads: the description says what it is.
    case unsupported(String)
    case auditConfig
    case unknown(String)

    static func of(_ o: [String: Any]) -> RecordShape {
        let has = { (key: String) in o[key] != nil }
        if has("request_id") && has("response") { return .wrappedVerifyResponse }
        if has("request_id") && has("transaction_ids") { return .serverRequest }
        if has("state") && (has("transaction_id") || has("user_id")) { return .clientReport }
        if has("status") && !has("signedTransactions") && !has("errorCode") && !has("signedTransactionInfo") {
            if has("receipt") || has("latest_receipt_info") || has("environment") { return .bareVerifyResponse }
            if let code = try? JSONField.integer(o["status"], field: "status"), code == 0 || (21000...21199).contains(code) {
                return .bareVerifyResponse
            }
        }
        if has("notification_type") { return .unsupported("App Store Server Notification V1 (not supported yet)") }
        if has("signedPayload") {
            return .unsupported("signed App Store Server Notification V2 or notification status (not supported yet)")
        }
        if has("notificationType") { return .unsupported("decoded App Store Server Notification V2 payload (not supported yet)") }
        if has("signedTransactions") || has("signedTransactionInfo") || has("errorCode") || has("notificationHistory")
            || (has("data") && has("appAppleId")) || (has("originalTransactionId") && has("success"))
        {
            return .unsupported("App Store Server API response (not supported yet)")
        }
        if has("autoRenewProductId") || has("expirationIntent") {
            return .unsupported("decoded JWS renewal info payload (not supported yet)")
        }
        if has("transactionId") || has("originalTransactionId") {
            return .unsupported("decoded JWS transaction payload (not supported yet)")
        }
        if has("appTransactionId") || has("receiptType") { return .unsupported("decoded JWS app transaction payload (not supported yet)") }
        if has("bundle_ids") || has("sandbox_allowlist") || (has("products") && o["products"] is [String: Any]) {
            return .auditConfig
        }
        if has("products") && (has("settings") || has("identifier")) { return .unsupported("StoreKit configuration file (not evidence)") }
        if has("Store") && has("Payload") { return .unsupported("Unity IAP receipt wrapper posted by a client (not supported yet)") }
        if has("transactionReceipt") { return .unsupported("client-posted purchase object with a transaction receipt (not supported yet)") }
        if has("findings") && has("planted") { return .unsupported("iap-audit sample answer key (not evidence)") }
        if has("errors") { return .unsupported("App Store Connect API error body (not evidence)") }
        return .unknown("JSON object of an unrecognized shape (keys: \(o.keys.sorted().prefix(8).joined(separator: ", ")))")
    }

    var kind: SourceKind {
        switch self {
        case .clientReport: return .clientReport
        case .serverRequest: return .serverLog
        case .wrappedVerifyResponse, .bareVerifyResponse: return .verifyResponse
        default: return .other
        }
    }
}
