import IAPAuditModel

/// Reads one App Store Server API response body or error body into one `AppleRecord`
/// (source `server_api`, items of section `server_api`, or `notification` for transactions inside
/// notifications).
///
/// Source: Apple, "App Store Server API":
/// - `HistoryResponse` (Get Transaction History), `RefundHistoryResponse` (Get Refund History):
///   `signedTransactions[]`, `revision`, `hasMore`, `bundleId`, `appAppleId`, `environment`;
/// - `OrderLookupResponse` (Look Up Order ID): `status` 0 valid / 1 invalid (a note, never the
///   record's `status`) and `signedTransactions[]`;
/// - `TransactionInfoResponse` (Get Transaction Info): `signedTransactionInfo`;
/// - `StatusResponse` (Get All Subscription Statuses): `data[].lastTransactions[]` with
///   `signedTransactionInfo`, `signedRenewalInfo`, `status`;
/// - `NotificationHistoryResponse`: `notificationHistory[].signedPayload`;
/// - `CheckTestNotificationResponse` (Get Test Notification Status): `signedPayload`, `sendAttempts`;
/// - `ExtendRenewalDateResponse`: `originalTransactionId`, `webOrderLineItemId`, `success`, `effectiveDate`;
/// - `ErrorResponse`: `errorCode` (the record's `status`) and `errorMessage`.
///
/// The body itself is unsigned: the record's signature combines its nested JWS, `not_checked` when
/// there are none. Nested values that are not compact JWS (Apple's samples hold placeholders such
/// as `signed_transaction_value`) become notes.
enum ServerAPIResponseReader {
    /// - Throws: `IngestError` for a top-level field of the wrong type (`errorCode` not a number,
    ///   `signedTransactions` not an array…).
    static func read(_ o: [String: Any], context: SignedRecordReader.Context, checker: any SignatureChecking) throws -> AppleRecord {
        var evidence = SignedEvidence(checker: checker)
        var status = 0
        var errorMessage: String?
        if let code = try SignedFields.integer(o, "errorCode", path: "") {
            status = Int(code)
            errorMessage = try SignedFields.text(o, "errorMessage", path: "")
        }
        if let transactions = try SignedFields.array(o, "signedTransactions", path: "") {
            for (i, value) in transactions.enumerated() {
                evidence.nestedTransaction(value, field: "signedTransactions[\(i)]", section: "server_api")
            }
            if let orderStatus = try SignedFields.integer(o, "status", path: ""), orderStatus != 0 {
                evidence.notes.append("status \(orderStatus): invalid order id (Look Up Order ID)")
            }
        }
        evidence.nestedTransaction(o["signedTransactionInfo"], field: "signedTransactionInfo", section: "server_api")
        try readStatuses(o, into: &evidence)
        if let history = try SignedFields.array(o, "notificationHistory", path: "") {
            for (i, entry) in history.enumerated() {
                let field = "notificationHistory[\(i)]"
                guard let entry = entry as? [String: Any] else {
                    evidence.note(field, IngestError.other("expected an object"))
                    continue
                }
                _ = NotificationV2Payload.nested(entry["signedPayload"], field: "\(field).signedPayload", into: &evidence)
            }
        }
        let test = NotificationV2Payload.nested(o["signedPayload"], field: "signedPayload", into: &evidence)
        if let success = try JSONField.bool(o["success"], field: "success"), !success {
            evidence.notes.append("success false: the renewal date was not extended (Extend a Subscription Renewal Date)")
        }
        var response = evidence.response(
            context, source: .serverAPI, status: status,
            environment: try SignedFields.environment(o, path: "") ?? test?.environment,
            bundleId: try SignedFields.id(o, "bundleId", path: "") ?? test?.bundleId, own: nil)
        response.errorMessage = errorMessage
        response.notification = test?.info
        response.signedDateMs = test?.signedDateMs
        return response
    }

    /// Get All Subscription Statuses: `data[g].lastTransactions[t]` with `signedTransactionInfo` and
    /// `signedRenewalInfo`.
    private static func readStatuses(_ o: [String: Any], into evidence: inout SignedEvidence) throws {
        guard let groups = try SignedFields.array(o, "data", path: "") else { return }
        for (g, group) in groups.enumerated() {
            guard let group = group as? [String: Any] else {
                evidence.note("data[\(g)]", IngestError.other("expected an object"))
                continue
            }
            let lastTransactions: [Any]
            do {
                lastTransactions = try SignedFields.array(group, "lastTransactions", path: "data[\(g)]") ?? []
            } catch {
                evidence.notes.append("\(error)")
                continue
            }
            for (t, last) in lastTransactions.enumerated() {
                let field = "data[\(g)].lastTransactions[\(t)]"
                guard let last = last as? [String: Any] else {
                    evidence.note(field, IngestError.other("expected an object"))
                    continue
                }
                evidence.nestedTransaction(last["signedTransactionInfo"], field: "\(field).signedTransactionInfo", section: "server_api")
                evidence.nestedRenewalInfo(last["signedRenewalInfo"], field: "\(field).signedRenewalInfo")
            }
        }
    }
}
