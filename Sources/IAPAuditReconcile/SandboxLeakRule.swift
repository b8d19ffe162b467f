import IAPAuditModel

/// SEMANTICS rule 11: a credited grant (with proof) on a sandbox answer. To a user in the config's
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
                let environment = c.environments(group) ?? "Sandbox"
                let answer =
                    reason == "environment_conflict"
                    ? "an answer labelled \(environment) whose receipt or subscription periods are the sandbox's"
                    : "a \(environment) answer (not production)"
                let detail = "credited in production on \(answer) by request(s) " + group.map(c.requestId).joined(separator: ", ")
                findings.append(
                    c.finding(
                        kind, reason, t, users: c.users(group), environment: environment, firstSeenMs: trail.firstSeenMs,
                        evidence: trail.evidence, detail: detail))
            }
        }
        return findings
    }
}
