import Foundation
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
            let ageHours = Double(c.asOfMs - oldest.fact.tsMs) / 3_600_000
            let detail =
                "\(views.count) unresolved request(s); oldest \(c.requestId(oldest)) is "
                + "\(String(format: "%.1f", ageHours)) h old at as-of"
                + (oldest.fact.status.map { ", status \($0): \(VerifyStatus.meaning(Int($0)))" } ?? ", no answer from Apple")
            findings.append(
                c.finding(
                    state.isOverdue ? .verificationBacklog : .pendingVerification, state.reason, t, users: c.users(views),
                    environment: c.environments(views), firstSeenMs: trail.firstSeenMs, evidence: trail.evidence, detail: detail))
        }
        return findings
    }
}
