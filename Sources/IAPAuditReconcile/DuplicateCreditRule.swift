import IAPAuditModel

/// SEMANTICS rule 10: a transaction granted more than once (grants with or without proof).
///
/// Two or more users → `cross_account`; one user → by product type: non-consumables and
/// subscriptions are info `regranted`; a consumable re-granted (after its first grant) by a `restore`
/// request is `restore_credited_as_purchase`; other consumables and unknown types are `same_user`.
enum DuplicateCreditRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            let grants = c.grants(t)
            guard grants.count >= 2 else { continue }
            let users = ExactText.distinctSorted(grants.compactMap { c.text($0.fact.userId) })
            let trail = c.trail(t, grants)
            let requestList = grants.map { "\(c.requestId($0)) (\(c.text($0.fact.userId) ?? "no user"))" }.joined(separator: ", ")
            let detail = "granted \(grants.count) times: \(requestList)"
            let kind: FindingKind
            let reason: String
            let type = c.productId(t).flatMap { c.config.products[$0] }
            if users.count >= 2 {
                (kind, reason) = (.duplicateCredit, "cross_account")
            } else if let type, type != .consumable {
                (kind, reason) = (.regranted, type.rawValue)
            } else if type == .consumable && grants.sorted(by: { $0.fact.tsMs < $1.fact.tsMs }).dropFirst().contains(where: \.fact.restore)
            {
                (kind, reason) = (.duplicateCredit, "restore_credited_as_purchase")
            } else {
                (kind, reason) = (.duplicateCredit, "same_user")
            }
            findings.append(
                c.finding(
                    kind, reason, t, users: users, environment: c.environments(grants), firstSeenMs: trail.firstSeenMs,
                    evidence: trail.evidence, detail: detail))
        }
        return findings
    }
}
