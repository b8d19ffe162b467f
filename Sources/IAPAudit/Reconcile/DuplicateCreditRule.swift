/// SEMANTICS rule 10: a transaction granted more than once (grants with or without proof).
///
/// Two or more users → `cross_account`; one user → by product type: non-consumables and
/// subscriptions are info `regranted`; a consumable re-granted (after its first grant) by a `restore`
/// request is
/// `restore_credited_as_purchase`; other consumables and unknown types are `same_user`.
enum DuplicateCreditRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, grants) in context.grants where grants.count >= 2 {
            let indexes = grants.map(\.requestIndex)
            let views = indexes.map { context.requests[$0] }
            let users = Set(views.compactMap(\.userId))
            let trail = context.trail(id, requests: indexes)
            let requestList = views.map { "\($0.request.requestId) (\($0.userId ?? "no user"))" }.joined(separator: ", ")
            let detail = "granted \(grants.count) times: \(requestList)"
            let kind: FindingKind
            let reason: String
            let type = context.productId(id).flatMap { context.config.products[$0] }
            if users.count >= 2 {
                (kind, reason) = (.duplicateCredit, "cross_account")
            } else if let type, type != .consumable {
                (kind, reason) = (.regranted, type.rawValue)
            } else if type == .consumable && views.sorted(by: { $0.tsMs < $1.tsMs }).dropFirst().contains(where: \.request.restore) {
                (kind, reason) = (.duplicateCredit, "restore_credited_as_purchase")
            } else {
                (kind, reason) = (.duplicateCredit, "same_user")
            }
            findings.append(
                context.finding(
                    kind, reason, id, users: Array(users), environment: context.environments(indexes),
                    firstSeenMs: trail.firstSeenMs, evidence: trail.evidence, detail: detail))
        }
        return findings
    }
}
