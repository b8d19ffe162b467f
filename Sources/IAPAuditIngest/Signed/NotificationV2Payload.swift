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
    /// `notification`, `data.signedRenewalInfo` a pending renewal (each checked at its own
    /// `signedDate`, or a note when not a compact JWS).
    ///
    /// - Parameter nestedIn: the field holding this payload, prefixed to the fields of its nested
    ///   JWS in notes (`notificationHistory[0].signedPayload`); empty at the top level.
    /// - Throws: `IngestError` when `notificationType` is missing or a field has the wrong type.
    static func read(_ payload: [String: Any], nestedIn: String = "", into evidence: inout SignedEvidence) throws -> Reading {
        let p = payload
        guard let type = try SignedFields.text(p, "notificationType", path: ""), !type.isEmpty else {
            throw IngestError.missingField("notificationType")
        }
        var info = NotificationInfo(
            notificationUUID: try SignedFields.id(p, "notificationUUID", path: ""), notificationType: type,
            subtype: try SignedFields.text(p, "subtype", path: ""), version: try SignedFields.text(p, "version", path: ""))
        var reading = Reading(info: info, signedDateMs: try SignedFields.date(p, "signedDate", path: ""))
        if let data = try SignedFields.object(p, "data", path: "") {
            let dataPath = "data"
            reading.environment = try SignedFields.environment(data, path: dataPath)
            reading.bundleId = try SignedFields.id(data, "bundleId", path: dataPath)
            info.status = try SignedFields.integer(data, "status", path: dataPath).map { Int($0) }
            let notePath = SignedFields.name(nestedIn, "data")
            evidence.nestedTransaction(
                data["signedTransactionInfo"], field: "\(notePath).signedTransactionInfo", section: "notification")
            evidence.nestedRenewalInfo(data["signedRenewalInfo"], field: "\(notePath).signedRenewalInfo")
        }
        if let summary = try SignedFields.object(p, "summary", path: "") {
            let summaryPath = "summary"
            info.hasSummary = true
            reading.environment = try reading.environment ?? SignedFields.environment(summary, path: summaryPath)
            reading.bundleId = try reading.bundleId ?? SignedFields.id(summary, "bundleId", path: summaryPath)
        }
        if let token = try SignedFields.object(p, "externalPurchaseToken", path: "") {
            let tokenPath = "externalPurchaseToken"
            reading.bundleId = try reading.bundleId ?? SignedFields.id(token, "bundleId", path: tokenPath)
            if reading.environment == nil, let purchaseId = try SignedFields.text(token, "externalPurchaseId", path: tokenPath) {
                reading.environment = purchaseId.hasPrefix("SANDBOX") ? "Sandbox" : "Production"
            }
        }
        reading.info = info
        return reading
    }

    /// Reads a nested `signedPayload` (Get Notification History, Get Test Notification Status),
    /// checked at its own `signedDate`; nil with a note when it cannot be read.
    static func nested(_ value: Any?, field: String, into evidence: inout SignedEvidence) -> Reading? {
        guard let jws = evidence.nestedJWS(value, field: field) else { return nil }
        do {
            guard SignedPayloadKind.ofSigned(jws.payload) == .notification else {
                throw IngestError.missingField("notificationType")
            }
            _ = evidence.check(jws, atMs: try SignedFields.date(jws.payload, "signedDate", path: ""))
            return try read(jws.payload, nestedIn: field, into: &evidence)
        } catch {
            evidence.note(field, error)
            return nil
        }
    }
}
