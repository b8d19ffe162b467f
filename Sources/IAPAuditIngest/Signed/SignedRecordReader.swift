import Foundation
import IAPAuditModel

/// Reads Apple's JWS-era formats, one `AppleRecord` per input record: compact JWS (signed
/// transactions, renewal info, app transactions, notification payloads), App Store Server API
/// bodies, Notifications V2 (`signedPayload` or decoded) and V1, and decoded payload JSON.
///
/// Signatures are checked by the `SignatureChecking` given, each JWS at its own payload's
/// `signedDate` (an AppTransaction's `receiptCreationDate`); the record's `signature` combines its
/// own JWS with every nested one. Decoded payload JSON and V1 bodies are `not_checked`.
enum SignedRecordReader {
    /// Where a record came from and its text as stored (`AppleRecord.rawJSON`).
    struct Context {
        var location: SourceLocation
        var requestId: String?
        var receivedAtMs: Int64?
        var raw: String
    }

    /// Reads one compact JWS: a transaction (`transactionId`), renewal info (`autoRenewProductId`,
    /// `renewalDate`… without `transactionId`), app transaction (`receiptType`/`appTransactionId`) or
    /// notification payload (`notificationType`).
    ///
    /// - Parameters:
    ///   - requestId, receivedAtMs: the server request it answered and when (ms since 1970 UTC), for
    ///     a JWS wrapped in a server-log line; nil for a bare one.
    /// - Throws: `IngestError` when `text` is not a compact JWS, its payload is none of the four
    ///   kinds, a transaction has no `transactionId`, or a field has the wrong type.
    static func read(
        jws text: String, at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, checker: any SignatureChecking
    ) throws -> AppleRecord {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let context = Context(location: location, requestId: requestId, receivedAtMs: receivedAtMs, raw: trimmed)
        return try signed(try CompactJWS.parse(trimmed), context: context, checker: checker, source: nil)
    }

    /// Reads one JSON object of a kind `kind(of:)` recognizes.
    ///
    /// - Parameter raw: the object's text as read, stored unchanged.
    /// - Throws: `IngestError` for an object of no such kind, a top-level JWS (`signedPayload`) that
    ///   is not one, a decoded transaction without `transactionId`, or a field of the wrong type.
    ///   Nested values that cannot be read become `notes`, never errors.
    static func read(
        object o: any RecordObject, at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, raw: String,
        checker: any SignatureChecking
    ) throws -> AppleRecord {
        let context = Context(location: location, requestId: requestId, receivedAtMs: receivedAtMs, raw: raw)
        switch kind(of: o) {
        case .notificationV1:
            return try NotificationV1Reader.read(o, context: context)
        case .serverAPIResponse:
            return try ServerAPIResponseReader.read(o, context: context, checker: checker)
        case .notificationV2 where o.has("signedPayload"):
            guard let text = o.string("signedPayload") else {
                throw IngestError.badField("signedPayload", "expected a compact JWS string")
            }
            let jws: CompactJWS
            do {
                jws = try CompactJWS.parse(text)
            } catch {
                throw IngestError.badField("signedPayload", "\(error)")
            }
            return try signed(jws, context: context, checker: checker, source: .notificationV2)
        case .notificationV2, .signedTransaction:
            guard let payloadKind = SignedPayloadKind.ofDecoded(o) else { break }
            var evidence = SignedEvidence(checker: checker)
            return try record(o, kind: payloadKind, context: context, evidence: &evidence, own: .notChecked)
        default:
            break
        }
        let keys = o.fieldNames.sorted().prefix(8).joined(separator: ", ")
        throw IngestError.other("not an App Store signed transaction, Server API response or server notification (keys: \(keys))")
    }

    /// The kind of file a JSON object belongs to, or nil when it is none of this reader's:
    /// - `notificationV1`: `notification_type`;
    /// - `notificationV2`: `signedPayload` (without `sendAttempts`) or a decoded payload (`notificationType`);
    /// - `serverAPIResponse`: `errorCode`, `signedTransactions`, `signedTransactionInfo`,
    ///   `notificationHistory`, `hasMore` with `revision` or `paginationToken` (a history page without
    ///   its empty list), `signedPayload` with `sendAttempts` (Get Test Notification Status),
    ///   a `data` array with `appAppleId`/`bundleId`/`environment` (Get All Subscription Statuses), or
    ///   `success` with `originalTransactionId` (Extend a Subscription Renewal Date);
    /// - `signedTransaction`: decoded transaction, renewal info or app transaction JSON
    ///   (`SignedPayloadKind.ofDecoded`).
    /// Never an object with `request_id` (a server-log line), nor a verifyReceipt body.
    static func kind(of o: any RecordObject) -> SourceKind? {
        // Present and not null.
        let has = { (key: String) in o.hasValue(key) }
        if has("request_id") { return nil }
        if o.string("notification_type") != nil { return .notificationV1 }
        if has("signedPayload") { return has("sendAttempts") ? .serverAPIResponse : .notificationV2 }
        if o.string("notificationType") != nil { return .notificationV2 }
        if has("errorCode") && !has("receipt") { return .serverAPIResponse }
        if has("signedTransactions") || has("signedTransactionInfo") || has("notificationHistory") { return .serverAPIResponse }
        // A history page with nothing on it: Apple may leave the empty list out.
        if has("hasMore") && (has("revision") || has("paginationToken")) { return .serverAPIResponse }
        if case .array? = o.field("data"), has("appAppleId") || has("bundleId") || has("environment") { return .serverAPIResponse }
        if has("success") && has("originalTransactionId") { return .serverAPIResponse }
        if let payload = SignedPayloadKind.ofDecoded(o) { return payload == .notification ? .notificationV2 : .signedTransaction }
        return nil
    }

    // MARK: - Records

    /// A top-level JWS: its own signature checked at its `signedDate`, then its payload read.
    private static func signed(
        _ jws: CompactJWS, context: Context, checker: any SignatureChecking, source: EvidenceSource?
    ) throws -> AppleRecord {
        guard let kind = SignedPayloadKind.ofSigned(jws.payload) else {
            if ["originalTransactionId", "productId", "purchaseDate", "webOrderLineItemId"].contains(where: { jws.payload.has($0) }) {
                throw IngestError.missingField("transactionId")
            }
            // Signed by someone, but says nothing of a purchase (Apple's `transactionInfo` sample holds only
            // environment, bundleId, signedDate): imported with its signature state and no transaction.
            var evidence = SignedEvidence(checker: checker)
            let signedMs = try jws.payload.date("signedDate")
            let own = evidence.check(jws, atMs: signedMs)
            var response = evidence.response(
                context, source: .signedTransaction, environment: try jws.payload.environment(),
                bundleId: try jws.payload.id("bundleId"), own: own)
            response.signedDateMs = signedMs
            let keys = jws.payload.keys.sorted().prefix(8).joined(separator: ", ")
            response.notes.append("payload names no transaction, renewal, app transaction or notification (keys: \(keys))")
            return response
        }
        if let source, source == .notificationV2, kind != .notification {
            throw IngestError.missingField("signedPayload.notificationType")
        }
        var evidence = SignedEvidence(checker: checker)
        let own = evidence.check(jws, atMs: try signedDate(jws.payload, kind: kind))
        return try record(jws.payload, kind: kind, context: context, evidence: &evidence, own: own)
    }

    /// The time a payload's chain must be valid at: `signedDate`, or an AppTransaction's
    /// `receiptCreationDate` (its signing date in Apple's library); ms since 1970 UTC.
    private static func signedDate(_ payload: any RecordObject, kind: SignedPayloadKind) throws -> Int64? {
        let signed = try payload.date("signedDate")
        guard kind == .appTransaction else { return signed }
        return try signed ?? payload.date("receiptCreationDate")
    }

    /// One record from a payload (decoded from a JWS whose status is `own`, or given as JSON with
    /// `own` = `notChecked`).
    private static func record(
        _ payload: any RecordObject, kind: SignedPayloadKind, context: Context, evidence: inout SignedEvidence, own: SignatureStatus
    ) throws -> AppleRecord {
        switch kind {
        case .transaction:
            var item = try TransactionPayload.item(payload, section: "signed_transaction", path: "")
            item.signature = own
            evidence.add(item)
            var response = evidence.response(
                context, source: .signedTransaction, environment: item.environment, bundleId: item.bundleId, own: own)
            response.signedDateMs = item.signedDateMs
            return response
        case .renewalInfo:
            evidence.pendingRenewals.append(try RenewalInfoPayload.pendingRenewal(payload, path: ""))
            var response = evidence.response(
                context, source: .signedRenewalInfo, environment: try payload.environment(),
                bundleId: try payload.id("bundleId"), own: own)
            response.signedDateMs = try payload.date("signedDate")
            return response
        case .appTransaction:
            var response = evidence.response(
                context, source: .appTransaction, environment: try payload.environment("receiptType"),
                bundleId: try payload.id("bundleId"), own: own)
            response.signedDateMs = try signedDate(payload, kind: .appTransaction)
            return response
        case .notification:
            let reading = try NotificationV2Payload.read(payload, into: &evidence)
            var response = evidence.response(
                context, source: .notificationV2, environment: reading.environment, bundleId: reading.bundleId, own: own)
            response.signedDateMs = reading.signedDateMs
            response.notification = reading.info
            return response
        }
    }
}
