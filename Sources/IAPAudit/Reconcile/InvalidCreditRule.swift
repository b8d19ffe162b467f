/// SEMANTICS rule 13: a grant without proof (the customer got the goods; Apple never confirmed).
/// One row per transaction; reason by precedence `signature_invalid` > `bundle_mismatch` >
/// `nonzero_status` > `not_in_receipt` > `no_verify_response`.
enum InvalidCreditRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, grants) in context.grants {
            let unproven = grants.filter { !$0.isProven }
            guard let reason = Grant.reasonPrecedence.first(where: { r in unproven.contains { $0.unprovenReason == r } }) else {
                continue
            }
            let indexes = unproven.map(\.requestIndex)
            let trail = context.trail(id, requests: indexes)
            let detail =
                "granted without proof by "
                + unproven.map {
                    "\(context.requests[$0.requestIndex].request.requestId) (\($0.unprovenReason!))"
                }.joined(separator: ", ")
            findings.append(
                context.finding(
                    .invalidCredit, reason, id, users: indexes.map { context.requests[$0].userId },
                    environment: context.environments(indexes), firstSeenMs: trail.firstSeenMs,
                    evidence: trail.evidence, detail: detail))
        }
        return findings
    }
}
