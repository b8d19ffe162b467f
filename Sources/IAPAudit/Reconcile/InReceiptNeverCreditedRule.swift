/// SEMANTICS rule 9: a production purchase in Apple's data that nobody reported or was granted —
/// Apple took money that nobody credited (`dropped_order` / `in_receipt_never_credited`).
///
/// Apple's data: a status-0 verifyReceipt response, Notification V1 or Server API page, or a JWS
/// transaction, Notification V2 or app receipt whose signature is `verified`.
/// An id Apple re-issued for a purchase someone was granted or reported (`id_reissued`) is no new
/// dropped order.
enum InReceiptNeverCreditedRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var qualifyingById: [String: [Listing]] = [:]
        for (id, listings) in context.items {
            if context.isReported(billingEventOf: id) || context.isGranted(billingEventOf: id) || context.isPending(id) { continue }
            let qualifying = listings.filter { qualifies($0, context) }
            if !qualifying.isEmpty { qualifyingById[id] = qualifying }
        }
        var findings: [Finding] = []
        for (id, qualifying) in qualifyingById {
            // One billing event is one dropped order, under its first qualifying id.
            if context.billingEvents.ids(of: id).first(where: { qualifyingById[$0] != nil }) != id { continue }
            let responses = qualifying.map { context.responses[$0.response] }
            let linkedUsers = responses.compactMap(\.requestId).compactMap { context.requestIndex[$0] }
                .map { context.requests[$0].userId }
            let firstSeen = (responses.compactMap(\.receivedAtMs) + qualifying.compactMap(\.item.purchaseDateMs)).min()
            findings.append(
                context.finding(
                    .droppedOrder, "in_receipt_never_credited", id, users: linkedUsers,
                    environment: responses.compactMap(\.effectiveEnvironment).first,
                    firstSeenMs: firstSeen, evidence: responses.map(\.location),
                    detail:
                        "in \(responses.count) production record(s) from Apple (\(Self.sources(responses))); never reported by the client, never granted"
                ))
        }
        return findings
    }

    /// A production, status-0 listing of ours that Apple stands behind: an unsigned Apple answer
    /// (verifyReceipt, Notification V1, Server API JSON) or a signed record whose signature was `verified`
    /// (an unchecked decoded payload or iOS 6 receipt, which anyone could write, proves no payment).
    static func qualifies(_ listing: Listing, _ context: ReconcileContext) -> Bool {
        let response = context.responses[listing.response]
        if response.status != 0 || response.isSandbox { return false }
        // The listing's own signature: each nested JWS of a page or notification is checked on its own.
        if response.source.isSigned ? listing.item.signature != .verified : listing.item.signature.failed { return false }
        if listing.item.environment.map(Environment.normalized).map({ $0 != "Production" }) == true { return false }
        if listing.item.inAppOwnershipType == "FAMILY_SHARED" { return false }
        if !context.config.bundleIds.isEmpty, let bundle = response.bundleId ?? listing.item.bundleId,
            !context.config.bundleIds.contains(bundle)
        {
            return false
        }
        return true
    }

    /// The distinct sources with their signature state, e.g. `verify_receipt, signed_transaction verified`.
    static func sources(_ responses: [VerifyResponse]) -> String {
        var seen: [String] = []
        for response in responses {
            let text = response.source.isSigned ? "\(response.source.rawValue) \(response.signature.text)" : response.source.rawValue
            if !seen.contains(text) { seen.append(text) }
        }
        return seen.joined(separator: ", ")
    }
}
