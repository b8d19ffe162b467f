import IAPAuditModel

/// Info `id_reissued`: Apple lists one subscription period under several transaction ids (same
/// `original_transaction_id` + `web_order_line_item_id`, e.g. a restored or re-synced receipt).
/// It is one purchase (rule 18): the other rules never count it twice (no second dropped order).
/// One row per period, keyed by its first id (shortest, then smallest).
enum IdReissuedRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        var done = Set<GlobalId>()
        for (id, ids) in c.purchases.siblings
        where id == ids[0] && c.purchases.kind(of: id) == .period && done.insert(id).inserted {
            guard let first = c.facts.local(of: id) else { continue }  // reconciled in another partition
            let locals = ids.compactMap { c.facts.local(of: $0) }
            let listings = locals.flatMap { c.listings($0) }
            var seen = Set<UInt64>()
            let responses = listings.sorted { $0.order < $1.order }.filter { seen.insert($0.order).inserted }
            let users = locals.flatMap { c.users(c.grants($0)) }
            let granted = ids.filter { c.facts.local(of: $0).map { !c.grants($0).isEmpty } ?? false }.map(\.text)
            let firstPurchase = listings.compactMap(\.fact.purchaseDateMs).min()
            var facts = FindingFacts()
            facts.set(.transactionIds, texts: ids.map(\.text))
            facts.set(.grantedTransactionIds, texts: granted)
            findings.append(
                c.finding(
                    .idReissuedSameBillingEvent, first, users: users,
                    environment: responses.lazy.compactMap { $0.fact.environmentName(c.facts.bytes) }.first,
                    firstSeenMs: firstPurchase, evidence: responses.map(c.location), facts: facts))
        }
        return findings
    }
}
