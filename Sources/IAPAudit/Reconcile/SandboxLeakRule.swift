/// SEMANTICS rule 11: a credited grant (with proof) on a sandbox answer. To a user in the config's
/// `sandbox_allowlist` (App Review, testers) it is info `sandbox_allowlisted` instead.
enum SandboxLeakRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, grants) in context.grants {
            let leaked = grants.filter { $0.isProven && context.requests[$0.requestIndex].isSandboxAnswer }
            if leaked.isEmpty { continue }
            let allowed = leaked.filter { context.requests[$0.requestIndex].userId.map(context.config.sandboxAllowlist.contains) == true }
            let notAllowed = leaked.filter { grant in !allowed.contains { $0.requestIndex == grant.requestIndex } }
            for (group, kind, reason) in [
                (notAllowed, FindingKind.sandboxLeak, "sandbox_credited"),
                (allowed, .sandboxAllowlisted, "allowlisted_user"),
            ] where !group.isEmpty {
                let indexes = group.map(\.requestIndex)
                let trail = context.trail(id, requests: indexes)
                let environment = context.environments(indexes) ?? "Sandbox"
                let detail =
                    "credited in production on a \(environment) answer (not production) by request(s) "
                    + indexes.map { context.requests[$0].request.requestId }.joined(separator: ", ")
                findings.append(
                    context.finding(
                        kind, reason, id, users: indexes.map { context.requests[$0].userId },
                        environment: environment, firstSeenMs: trail.firstSeenMs,
                        evidence: trail.evidence, detail: detail))
            }
        }
        return findings
    }
}
