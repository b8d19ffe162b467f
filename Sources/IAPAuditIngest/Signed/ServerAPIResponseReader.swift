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
    ///   `orderLookup`: the body is a Look Up Order ID answer (its wrapper says so), whose `status` 1 is
    ///   a note also without `signedTransactions`.
    static func read(
        _ o: any RecordObject, context: SignedRecordReader.Context, checker: any SignatureChecking, orderLookup: Bool = false
    ) throws -> AppleRecord {
        var evidence = SignedEvidence(checker: checker)
        var status = 0
        var errorMessage: String?
        if let code = try o.integer("errorCode") {
            status = Int(code)
            errorMessage = try o.text("errorMessage")
        }
        let transactions = try o.array("signedTransactions")
        for (i, value) in (transactions ?? []).enumerated() {
            evidence.nestedTransaction(value, field: "signedTransactions[\(i)]", section: "server_api")
        }
        if transactions != nil || orderLookup, let orderStatus = try o.integer("status"), orderStatus != 0 {
            evidence.notes.append("status \(orderStatus): invalid order id (Look Up Order ID)")
        }
        evidence.nestedTransaction(o.field("signedTransactionInfo"), field: "signedTransactionInfo", section: "server_api")
        try readStatuses(o, into: &evidence)
        if let history = try o.array("notificationHistory") {
            for (i, entry) in history.enumerated() {
                let field = "notificationHistory[\(i)]"
                guard case .object(let entry) = entry else {
                    evidence.note(field, IngestError.other("expected an object"))
                    continue
                }
                _ = NotificationV2Payload.nested(entry.field("signedPayload"), field: "\(field).signedPayload", into: &evidence)
            }
        }
        let test = NotificationV2Payload.nested(o.field("signedPayload"), field: "signedPayload", into: &evidence)
        if let success = try o.bool("success"), !success {
            evidence.notes.append("success false: the renewal date was not extended (Extend a Subscription Renewal Date)")
        }
        var response = evidence.response(
            context, source: .serverAPI, status: status,
            environment: try o.environment() ?? test?.environment,
            bundleId: try o.id("bundleId") ?? test?.bundleId, own: nil)
        response.errorMessage = errorMessage
        response.notification = test?.info
        response.signedDateMs = test?.signedDateMs
        return response
    }

    /// A Look Up Order ID answer kept with the order id it was asked for: `{"order_id", "received_at",
    /// "response": {…}}` (`request_id` too when a server request fetched it), stored with `orderId`.
    /// - Throws: `IngestError` for a missing or bad `order_id` or `received_at`, or a `response` that is no
    ///   Look Up Order ID answer (`status`, `signedTransactions`) or Server API error body (`errorCode`).
    static func readOrderLookup(_ o: any RecordObject, at location: SourceLocation, raw: String, checker: any SignatureChecking) throws
        -> AppleRecord
    {
        let orderId = try o.requiredId("order_id")
        guard case .object(let body)? = o.field("response"),
            SignedRecordReader.kind(of: body) == .serverAPIResponse || body.has("status")
        else {
            throw IngestError.badField(
                "response", "expected Apple's Look Up Order ID response (status, signedTransactions) or error body (errorCode)")
        }
        let context = SignedRecordReader.Context(
            location: location, requestId: try o.id("request_id"), receivedAtMs: try o.logTimestamp("received_at"), raw: raw)
        var record = try read(body, context: context, checker: checker, orderLookup: true)
        record.orderId = orderId
        if record.environment == nil { record.environment = try o.environment() }
        return record
    }

    /// A Get Transaction Info answer kept with the transaction id asked and the environment asked, as `iap-audit
    /// ask-apple` writes it: `{"transaction_id", "received_at", "environment", "endpoint", "http_status", "response": {…}}`,
    /// stored with `askedTransactionId` (an error body, which names no environment, with the one asked).
    /// - Throws: `IngestError` for a missing or bad `transaction_id` or `received_at`, or a `response` that is no Server API
    ///   body (`signedTransactionInfo`, `signedTransactions`) or error body (`errorCode`).
    static func readTransactionLookup(_ o: any RecordObject, at location: SourceLocation, raw: String, checker: any SignatureChecking)
        throws -> AppleRecord
    {
        let asked = try o.requiredId("transaction_id")
        guard case .object(let body)? = o.field("response"), SignedRecordReader.kind(of: body) == .serverAPIResponse else {
            throw IngestError.badField(
                "response", "expected Apple's Get Transaction Info response (signedTransactionInfo) or error body (errorCode)")
        }
        let context = SignedRecordReader.Context(
            location: location, requestId: nil, receivedAtMs: try o.logTimestamp("received_at"), raw: raw)
        var record = try read(body, context: context, checker: checker)
        record.askedTransactionId = asked
        if record.environment == nil { record.environment = try o.environment() }
        return record
    }

    /// Get All Subscription Statuses: `data[g].lastTransactions[t]` with `signedTransactionInfo` and
    /// `signedRenewalInfo`.
    private static func readStatuses(_ o: any RecordObject, into evidence: inout SignedEvidence) throws {
        guard let groups = try o.array("data") else { return }
        for (g, group) in groups.enumerated() {
            guard case .object(let group) = group else {
                evidence.note("data[\(g)]", IngestError.other("expected an object"))
                continue
            }
            let lastTransactions: [FieldValue]
            do {
                lastTransactions = try group.array("lastTransactions", path: "data[\(g)]") ?? []
            } catch {
                evidence.notes.append("\(error)")
                continue
            }
            for (t, last) in lastTransactions.enumerated() {
                let field = "data[\(g)].lastTransactions[\(t)]"
                guard case .object(let last) = last else {
                    evidence.note(field, IngestError.other("expected an object"))
                    continue
                }
                evidence.nestedTransaction(
                    last.field("signedTransactionInfo"), field: "\(field).signedTransactionInfo", section: "server_api")
                evidence.nestedRenewalInfo(last.field("signedRenewalInfo"), field: "\(field).signedRenewalInfo")
            }
        }
    }
}
