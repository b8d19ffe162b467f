/// SEMANTICS rule 14: requests with no final answer or a retryable status, not cleared by a later
/// status-0 request. Older than the grace → `verification_backlog`; all younger → info
/// `pending_verification`. Reasons `no_verify_response` | `retryable_status`.
enum VerificationBacklogRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        context.verification.map { id, state in
            let views = state.uncleared.map(\.view)
            let indexes = views.compactMap { context.requestIndex[$0.request.requestId] }
            let trail = context.trail(id, requests: indexes)
            let oldest = views.first!
            let ageHours = Double(context.asOfMs - oldest.tsMs) / 3_600_000
            let detail =
                "\(views.count) unresolved request(s); oldest \(oldest.request.requestId) is "
                + "\(String(format: "%.1f", ageHours)) h old at as-of"
                + (oldest.status.map { ", status \($0): \(VerifyStatus.meaning($0))" } ?? ", no answer from Apple")
            return context.finding(
                state.isOverdue ? .verificationBacklog : .pendingVerification, state.reason, id,
                users: views.map(\.userId), environment: context.environments(indexes),
                firstSeenMs: trail.firstSeenMs, evidence: trail.evidence, detail: detail)
        }
    }
}
