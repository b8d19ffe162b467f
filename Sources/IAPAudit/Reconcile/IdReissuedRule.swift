/// Info `id_reissued`: Apple lists one purchase under several transaction ids (same
/// `original_transaction_id` + `web_order_line_item_id`, e.g. a restored or re-synced receipt).
/// It is one billing event: the other rules never count it twice (no second dropped order).
/// One row per event, keyed by its first id (shortest, then smallest).
enum IdReissuedRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        var done = Set<String>()
        for (id, ids) in context.billingEvents.siblings where id == ids[0] && done.insert(id).inserted {
            let listings = ids.flatMap { context.items[$0] ?? [] }
            let responses = Set(listings.map(\.response)).sorted().map { context.responses[$0] }
            let users = ids.flatMap { (context.grants[$0] ?? []).map { context.requests[$0.requestIndex].userId } }
            let granted = ids.filter { context.grants[$0] != nil }
            let first = listings.compactMap(\.item.purchaseDateMs).min()
            findings.append(
                context.finding(
                    .idReissued, "same_billing_event", id, users: users,
                    environment: responses.compactMap(\.effectiveEnvironment).first, firstSeenMs: first,
                    evidence: responses.map(\.location),
                    detail: "one purchase under \(ids.count) transaction ids: \(ids.joined(separator: ", "))"
                        + (granted.isEmpty ? "; none granted" : "; granted as \(granted.joined(separator: ", "))")))
        }
        return findings
    }
}
