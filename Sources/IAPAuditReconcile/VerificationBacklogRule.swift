import IAPAuditModel

/// semantics.md rule 14: requests with no final answer or a retryable status, not cleared by a later
/// status-0 request. Older than the grace → `verification_backlog`; all younger → info
/// `pending_verification`. Reasons `no_verify_response` | `retryable_status`.
enum VerificationBacklogRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            guard let state = c.verification(t) else { continue }
            let views = state.uncleared
            let trail = c.trail(t, views)
            let oldest = views[0]
            var facts = FindingFacts()
            facts.set(.unresolvedCount, views.count)
            facts.set(.oldestRequestId, c.requestId(oldest))
            facts.set(.oldestRequestMs, oldest.fact.tsMs)
            facts.set(.asOfMs, c.audit.asOfMs)
            facts.set(.status, oldest.fact.status.map { Int64($0) })
            findings.append(
                c.finding(
                    state.cause, t, users: c.users(views),
                    environment: c.environments(views), firstSeenMs: trail.firstSeenMs, evidence: trail.evidence, facts: facts))
        }
        return findings
    }
}
