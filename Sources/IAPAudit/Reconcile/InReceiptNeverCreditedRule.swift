/// SEMANTICS rule 9: a production purchase in a verified receipt that nobody reported or was granted —
/// Apple took money that nobody credited (`dropped_order` / `in_receipt_never_credited`).
enum InReceiptNeverCreditedRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, listings) in context.items {
            if context.clientReports[id] != nil || context.grants[id] != nil || context.isPending(id) { continue }
            let qualifying = listings.filter { listing in
                let response = context.responses[listing.response]
                if response.status != 0 || response.isSandbox { return false }
                if listing.item.inAppOwnershipType == "FAMILY_SHARED" { return false }
                if !context.config.bundleIds.isEmpty, let bundle = response.bundleId, !context.config.bundleIds.contains(bundle) {
                    return false
                }
                return true
            }
            if qualifying.isEmpty { continue }
            let responses = qualifying.map { context.responses[$0.response] }
            let linkedUsers = responses.compactMap(\.requestId).compactMap { context.requestIndex[$0] }
                .map { context.requests[$0].userId }
            let firstSeen = (responses.compactMap(\.receivedAtMs) + qualifying.compactMap(\.item.purchaseDateMs)).min()
            findings.append(
                context.finding(
                    .droppedOrder, "in_receipt_never_credited", id, users: linkedUsers,
                    environment: responses.compactMap(\.effectiveEnvironment).first,
                    firstSeenMs: firstSeen, evidence: responses.map(\.location),
                    detail: "in \(responses.count) status-0 non-Sandbox receipt(s); never reported by the client, never granted"))
        }
        return findings
    }
}
