import IAPAuditModel

/// semantics.md rules 10 and 18: a purchase granted more than once (grants with or without proof, of any
/// of its ids). One row per purchase, keyed by its earliest granted id, listing every id and user.
///
/// Two or more users → `cross_account` (a receipt or account-sharing replay). One user granted two
/// different ids of one subscription period or non-renewing purchase → `reissued_id_credited` (a
/// second period for one payment); of one non-consumable → info `regranted` (a restore). One user, one
/// id, by product type: non-consumables and subscriptions are info `regranted`; a consumable re-granted
/// (after its first grant) by a `restore` request is `restore_credited_as_purchase`; other consumables
/// and unknown types are `same_user`.
enum DuplicateCreditRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            // Most purchases have one id, granted once or never: nothing to count.
            if !c.ofPurchases && c.facts.carriers(t).lazy.filter(\.fact.isGrant).count < 2 { continue }
            let ids = c.purchase(t)
            let grantsById = ids.map { c.grants($0) }
            // The earliest granted id keys the row: the others are skipped.
            let first = zip(ids, grantsById).filter { !$0.1.isEmpty }.min { a, b in
                (a.1[0].fact.tsMs, a.1[0].order) < (b.1[0].fact.tsMs, b.1[0].order)
            }
            guard first?.0 == t else { continue }
            let grants = grantsById.joined().sorted { $0.order < $1.order }  // log order
            guard grants.count >= 2 else { continue }
            let users = ExactText.distinctSorted(grants.compactMap { c.text($0.fact.userId) })
            let grantedIds = zip(ids, grantsById).filter { !$0.1.isEmpty }.map(\.0)
            let trail = c.trail(ids, Array(grants))
            let several = grantedIds.count > 1
            var facts = FindingFacts()
            facts.set(.grants, objects: grants.map { [c.requestId($0), c.text($0.fact.userId), c.id($0.t)] })
            facts.set(.transactionIds, texts: ids.map(c.id))
            facts.set(.grantedTransactionIds, texts: grantedIds.map(c.id))
            facts.set(
                .reportedBy,
                texts: ExactText.distinctSorted(
                    ids.flatMap { c.facts.clients($0) }.filter { $0.fact.state == .purchased }.compactMap { c.text($0.fact.userId) }))
            let cause: FindingReason
            let type = c.productId(t).flatMap { c.audit.config.products[$0] }
            if users.count >= 2 {
                cause = .duplicateCreditCrossAccount
            } else if several {
                switch c.purchases.kind(of: c.facts.ids[Int(t)]) {
                case .nonConsumable?: cause = .regrantedNonConsumable
                case .period?, .nonRenewing?, nil: cause = .duplicateCreditReissuedIdCredited
                }
            } else if let type, type != .consumable {
                cause =
                    type == .nonConsumable
                    ? .regrantedNonConsumable : type == .autoRenewable ? .regrantedAutoRenewable : .regrantedNonRenewing
            } else if type == .consumable && grants.sorted(by: { $0.fact.tsMs < $1.fact.tsMs }).dropFirst().contains(where: \.fact.restore)
            {
                cause = .duplicateCreditRestoreCreditedAsPurchase
            } else {
                cause = .duplicateCreditSameUser
            }
            findings.append(
                c.finding(
                    cause, t, users: users, environment: c.environments(Array(grants)), firstSeenMs: trail.firstSeenMs,
                    // Given away at the second credit.
                    lossAtMs: grants.map(\.fact.tsMs).sorted()[1], evidence: trail.evidence, facts: facts))
        }
        return findings
    }
}
