import IAPAuditModel

/// SEMANTICS rule 8: the customer reported a purchase and nobody was granted it.
///
/// Reasons, first that applies: `never_sent`; info `sandbox_refused` when every answered request
/// was a sandbox answer; nothing while pending; `not_credited`; `not_in_receipt`; `verify_failed`;
/// `no_verify_response`.
enum DroppedOrderRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions where c.facts.clients(t).contains(where: { $0.fact.state == .purchased }) {
            if c.isGranted(billingEventOf: t) { continue }
            let carriers = c.carriedBy(t)
            let trail = c.trail(t, carriers)
            let users = c.facts.clients(t).map { c.text($0.fact.userId) } + c.users(carriers)
            func make(_ kind: FindingKind, _ reason: String, _ detail: String) -> Finding {
                c.finding(
                    kind, reason, t, users: users, environment: c.environments(carriers), firstSeenMs: trail.firstSeenMs,
                    evidence: trail.evidence, detail: detail)
            }
            if carriers.isEmpty {
                findings.append(make(.droppedOrder, "never_sent", "client reported purchased; no server request carried it"))
                continue
            }
            let answered = carriers.filter(\.fact.isAnswered)
            if !answered.isEmpty && answered.allSatisfy(\.fact.isSandboxAnswer) {
                findings.append(
                    make(.sandboxRefused, "sandbox_receipt", "every answer was from the sandbox and nothing was granted: no money was paid")
                )
                continue
            }
            if c.isPending(t) { continue }
            let requests = "requests " + carriers.map(c.requestId).joined(separator: ", ")
            if let shown = carriers.first(where: { $0.fact.isProductionSuccess && $0.fact.finalContains }) {
                findings.append(
                    make(
                        .droppedOrder, "not_credited",
                        "verified by Apple and present in the receipt of \(c.requestId(shown)), never granted (\(requests))"))
            } else if let answered = carriers.first(where: \.fact.isProductionSuccess) {
                findings.append(
                    make(
                        .droppedOrder, "not_in_receipt",
                        "verified by Apple (status 0) in \(c.requestId(answered)) but absent from the receipt (\(requests))"))
            } else if let failed = carriers.filter({ ($0.fact.status ?? 0) != 0 }).max(by: { $0.fact.latestMs < $1.fact.latestMs }),
                let status = failed.fact.status
            {
                findings.append(
                    make(
                        .droppedOrder, "verify_failed",
                        "last status \(status): \(VerifyStatus.meaning(Int(status))) (\(c.requestId(failed)); \(requests))"))
            } else {
                findings.append(make(.droppedOrder, "no_verify_response", "Apple never answered a request that carried it (\(requests))"))
            }
        }
        return findings
    }
}
