import IAPAuditModel

/// semantics.md rule 11: a credited grant (with proof) on a sandbox answer. To a user in the config's
/// `sandbox_allowlist` (App Review, testers) it is info `sandbox_allowlisted` instead. On an answer
/// whose environment signals disagree (rule 24) the reason is `environment_conflict`.
enum SandboxLeakRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            let leaked = c.grants(t).filter { $0.isProven && $0.fact.isSandboxAnswer }
            if leaked.isEmpty { continue }
            // Users are exact text: an allowlisted user is this user's bytes.
            let allowed = leaked.filter { grant in
                c.text(grant.fact.userId).map { user in c.config.sandboxAllowlist.contains { $0.utf8.elementsEqual(user.utf8) } } == true
            }
            let notAllowed = leaked.filter { grant in !allowed.contains { ReconcileContext.same($0, grant) } }
            for (group, kind, reason) in [
                (notAllowed.filter { !$0.fact.environmentConflict }, FindingKind.sandboxLeak, "sandbox_credited"),
                (notAllowed.filter(\.fact.environmentConflict), .sandboxLeak, "environment_conflict"),
                (allowed, .sandboxAllowlisted, "allowlisted_user"),
            ] where !group.isEmpty {
                let trail = c.trail(t, group)
                let requests = group.map(c.requestId).joined(separator: ", ")
                let environment: String?
                let detail: String
                if reason == "environment_conflict" {
                    // Whatever the answer was labelled (Production, or nothing): its signals are the sandbox's.
                    environment = c.environments(group)
                    detail =
                        "credited on an answer \(environment.map { "labelled \($0)" } ?? "naming no environment") whose receipt_type or "
                        + "subscription periods (an hour or less) are the sandbox's: no production payment is proven; request(s) \(requests)"
                } else {
                    environment = c.environments(group) ?? "Sandbox"
                    detail = "credited on a \(environment!) answer, where no money is paid, by request(s) \(requests)"
                }
                findings.append(
                    c.finding(
                        kind, reason, t, users: c.users(group), environment: environment, firstSeenMs: trail.firstSeenMs,
                        // Given away at the first such credit.
                        lossAtMs: group.map(\.fact.tsMs).min(), evidence: trail.evidence, detail: detail))
            }
        }
        return findings
    }
}
