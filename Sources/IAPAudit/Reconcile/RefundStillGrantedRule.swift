/// SEMANTICS rule 12: Apple shows a cancellation date for a credited transaction and some user
/// granted it kept it: no revoke of it (for that user, or without a user) at or after that user's
/// last grant. Reason `cancelled_not_revoked`; the row lists who still holds it.
enum RefundStillGrantedRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, listings) in context.items {
            guard let cancelledMs = listings.compactMap(\.item.cancellationDateMs).min(),
                let grants = context.grants[id], grants.contains(where: \.isProven)
            else { continue }
            var lastGrant: [String?: Int64] = [:]
            for grant in grants {
                let view = context.requests[grant.requestIndex]
                lastGrant[view.userId] = max(lastGrant[view.userId] ?? Int64.min, view.tsMs)
            }
            let revokes = context.revokes[id] ?? []
            let holders = lastGrant.filter { user, grantedAt in
                !revokes.contains { ($0.userId == nil || $0.userId == user) && $0.tsMs >= grantedAt }
            }.keys
            if holders.isEmpty { continue }
            let indexes = grants.map(\.requestIndex)
            let trail = context.trail(id, requests: indexes)
            let responseEvidence = listings.map { context.responses[$0.response].location }
            let reason = listings.compactMap(\.item.cancellationReason).first.map { ", cancellation_reason \($0)" } ?? ""
            findings.append(
                context.finding(
                    .refundStillGranted, "cancelled_not_revoked", id, users: Array(holders), environment: context.environments(indexes),
                    firstSeenMs: trail.firstSeenMs, evidence: trail.evidence + responseEvidence + revokes.map(\.location),
                    detail:
                        "cancelled at \(Timestamp.iso(cancelledMs))\(reason); still granted to \(holders.map { $0 ?? "(no user)" }.sorted().joined(separator: ", "))"
                ))
        }
        return findings
    }
}
