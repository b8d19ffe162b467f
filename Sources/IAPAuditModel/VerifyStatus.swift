/// Meanings of verifyReceipt `status` codes.
///
/// Source: Apple, "verifyReceipt" → `responseBody.status` (App Store Receipts).
public enum VerifyStatus {
    /// Every code Apple documents, with its meaning.
    public static let meanings: [(code: Int, meaning: String)] = [
        (0, "valid receipt"),
        (21000, "request to the App Store was not made using HTTP POST"),
        (21001, "no longer sent by the App Store"),
        (21002, "receipt-data malformed or the service had a temporary issue"),
        (21003, "receipt could not be authenticated"),
        (21004, "shared secret does not match the account's"),
        (21005, "receipt server was temporarily unable to provide the receipt"),
        (21006, "receipt valid but the subscription has expired"),
        (21007, "sandbox receipt sent to the production environment"),
        (21008, "production receipt sent to the sandbox environment"),
        (21009, "internal data access error"),
        (21010, "user account cannot be found or has been deleted"),
        // App Store Server API `errorCode`s (Apple, "App Store Server API" → Error codes) seen in
        // Server API error bodies; the record's `status` holds them.
        (4_000_006, "Server API: invalid transaction id"),
        (4_040_010, "Server API: transaction id not found"),
        (4_290_000, "Server API: rate limit exceeded (retry later)"),
        (5_000_000, "Server API: general internal error (retry later)"),
        (5_000_001, "Server API: general internal error, retryable"),
    ]

    /// The meaning of `code`; 21100–21199 are internal data access errors.
    public static func meaning(_ code: Int) -> String {
        if let found = meanings.first(where: { $0.code == code }) { return found.meaning }
        if (21100...21199).contains(code) { return "internal data access error" }
        return "unknown status"
    }

    /// semantics.md rule 14: 21002, 21005, 21009, and 21100–21199 unless Apple's
    /// `is-retryable` is explicitly false; for Server API error bodies, 4290000 (rate limit) and
    /// 5000000/5000001 (Apple's internal errors).
    public static func isRetryable(_ code: Int, isRetryable: Bool?) -> Bool {
        switch code {
        case 21002, 21005, 21009: return true
        case 21100...21199: return isRetryable != false
        case 4_290_000, 5_000_000, 5_000_001: return true
        default: return false
        }
    }
}
