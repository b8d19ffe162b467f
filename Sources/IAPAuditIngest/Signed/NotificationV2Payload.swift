import IAPAuditModel

/// Reads an App Store Server Notification V2 payload, decoded from a `signedPayload` or given as
/// JSON.
///
/// Source: Apple, "App Store Server Notifications V2" → `responseBodyV2DecodedPayload`:
/// `notificationType`, `subtype`, `notificationUUID`, `version`, `signedDate` (ms since 1970 UTC),
/// and one of `data` (`appAppleId`, `bundleId`, `bundleVersion`, `environment`,
/// `signedTransactionInfo`, `signedRenewalInfo`, `status`, `consumptionRequestReason`), `summary`
/// (RENEWAL_EXTENSION / SUMMARY: no transaction) or `externalPurchaseToken` (EXTERNAL_PURCHASE_TOKEN:
/// no transaction). Types and subtypes are kept raw, so values Apple adds later still read.
enum NotificationV2Payload {
    /// What the notification says about itself; its transaction and renewal info go to the evidence.
    struct Reading {
        var info: NotificationInfo
        /// `data.environment`, else `summary.environment`, else for an external purchase token
        /// `Sandbox` when `externalPurchaseId` starts with `SANDBOX` and `Production` otherwise
        /// (as Apple's server library decides).
        var environment: String?
        /// `data.bundleId`, `summary.bundleId` or `externalPurchaseToken.bundleId`.
        var bundleId: String?
        /// `signedDate`: milliseconds since 1970 UTC.
        var signedDateMs: Int64?
    }

    /// Reads `payload`; its nested `data.signedTransactionInfo` becomes an item of section
    /// `notification` carrying the notification's type and subtype, `data.signedRenewalInfo` a pending
    /// renewal (each checked at its own `signedDate`, or a note when not a compact JWS).
    ///
    /// - Parameter nestedIn: the field holding this payload, prefixed to the fields of its nested
    ///   JWS in notes (`notificationHistory[0].signedPayload`); empty at the top level.
    ///   - envelope: the status of the JWS this payload was nested in (an entry of a Get Notification History page, a Get
    ///     Test Notification Status answer): its transaction's item carries the worse of it and its own, since the
    ///     entry's type (REFUND_REVERSED) is only as good as the entry's own signature, and the page itself is unsigned
    ///     (docs/security.md, "Trust levels"). nil at the top level: the record's signature is the envelope's.
    /// - Throws: `IngestError` when `notificationType` is missing or a field has the wrong type.
    static func read(
        _ payload: any RecordObject, nestedIn: String = "", envelope: SignatureStatus? = nil, into evidence: inout SignedEvidence
    ) throws -> Reading {
        let p = payload
        guard let type = try p.text("notificationType") else { throw IngestError.missingField("notificationType") }
        if type.isEmpty {
            throw IngestError.badField(
                "notificationType", "is empty (Apple always names the type: DID_RENEW, REFUND, TEST…); keep the payload as Apple sent it")
        }
        var info = NotificationInfo(
            notificationUUID: try p.id("notificationUUID"), notificationType: type, subtype: try p.text("subtype"),
            version: try p.text("version"))
        var reading = Reading(info: info, signedDateMs: try p.date("signedDate"))
        if let data = try p.object("data") {
            let dataPath = "data"
            reading.environment = try data.environment(path: dataPath)
            reading.bundleId = try data.id("bundleId", path: dataPath)
            info.status = try data.integer("status", path: dataPath).map { Int($0) }
            let notePath = fieldName("data", in: nestedIn)
            evidence.nestedTransaction(
                data.field("signedTransactionInfo"), field: "\(notePath).signedTransactionInfo", section: "notification",
                notification: info, envelope: envelope)
            evidence.nestedRenewalInfo(data.field("signedRenewalInfo"), field: "\(notePath).signedRenewalInfo")
        }
        if let summary = try p.object("summary") {
            let summaryPath = "summary"
            info.hasSummary = true
            reading.environment = try reading.environment ?? summary.environment(path: summaryPath)
            reading.bundleId = try reading.bundleId ?? summary.id("bundleId", path: summaryPath)
        }
        if let token = try p.object("externalPurchaseToken") {
            let tokenPath = "externalPurchaseToken"
            reading.bundleId = try reading.bundleId ?? token.id("bundleId", path: tokenPath)
            if reading.environment == nil, let purchaseId = try token.text("externalPurchaseId", path: tokenPath) {
                reading.environment = purchaseId.hasPrefix("SANDBOX") ? "Sandbox" : "Production"
            }
        }
        reading.info = info
        return reading
    }

    /// Reads a nested `signedPayload` (Get Notification History, Get Test Notification Status),
    /// checked at its own `signedDate`; nil with a note when it cannot be read.
    static func nested(_ value: FieldValue?, field: String, into evidence: inout SignedEvidence) -> Reading? {
        guard let jws = evidence.nestedJWS(value, field: field) else { return nil }
        do {
            guard SignedPayloadKind.ofSigned(jws.payload) == .notification else {
                throw IngestError.missingField("notificationType")
            }
            let envelope = evidence.check(jws, atMs: try jws.payload.date("signedDate"))
            return try read(jws.payload, nestedIn: field, envelope: envelope, into: &evidence)
        } catch {
            evidence.note(field, error)
            return nil
        }
    }
}
