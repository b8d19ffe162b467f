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
            let allowlist = c.audit.config.sandboxAllowlist
            let allowed = leaked.filter { grant in
                c.text(grant.fact.userId).map { user in allowlist.contains { $0.utf8.elementsEqual(user.utf8) } } == true
            }
            let notAllowed = leaked.filter { grant in !allowed.contains { ReconcileContext.same($0, grant) } }
            for (group, cause) in [
                (notAllowed.filter { !$0.fact.environmentConflict }, FindingReason.sandboxLeakSandboxCredited),
                (notAllowed.filter(\.fact.environmentConflict), .sandboxLeakEnvironmentConflict),
                (allowed, .sandboxAllowlistedAllowlistedUser),
            ] where !group.isEmpty {
                let trail = c.trail(t, group)
                var facts = FindingFacts()
                facts.set(.requestIds, texts: group.map(c.requestId))
                // Whatever a conflicting answer was labelled (Production, or nothing): its signals are the sandbox's.
                let environment = cause == .sandboxLeakEnvironmentConflict ? c.environments(group) : c.environments(group) ?? "Sandbox"
                findings.append(
                    c.finding(
                        cause, t, users: c.users(group), environment: environment, firstSeenMs: trail.firstSeenMs,
                        // Given away at the first such credit.
                        lossAtMs: group.map(\.fact.tsMs).min(), evidence: trail.evidence, facts: facts))
            }
        }
        return findings
    }
}
