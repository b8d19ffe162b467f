import IAPAuditModel

/// semantics.md rule 8: the customer reported a purchase and nobody was granted it (nor another id of its
/// purchase, rule 18).
///
/// Reasons, first that applies: info `outside_window` when dated outside `--from`/`--to` (rule 17);
/// `never_sent`; info `sandbox_refused` when every answered request was a sandbox answer
/// (`environment_conflict` when an answer's environment signals disagree, rule 24); nothing while
/// pending; `not_credited`; `stale_receipt` (rule 21) or `not_in_receipt`; `verify_failed`;
/// `no_verify_response`.
enum DroppedOrderRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions where c.facts.clients(t).contains(where: { $0.fact.state == .purchased }) {
            if c.isGranted(purchaseOf: t) { continue }
            let carriers = c.carriedBy(t)
            let trail = c.trail(t, carriers)
            let users = c.facts.clients(t).map { c.text($0.fact.userId) } + c.users(carriers)
            func make(_ cause: FindingReason, _ facts: FindingFacts = FindingFacts()) -> Finding {
                c.finding(
                    cause, t, users: users, environment: c.environments(carriers), firstSeenMs: trail.firstSeenMs,
                    evidence: trail.evidence, facts: facts)
            }
            let reportedMs = c.facts.clients(t).filter { $0.fact.state == .purchased }.map(\.fact.tsMs).min()!
            if let outside = c.outsideWindow(
                t, dateMs: c.purchaseDateMs(t), appleOnly: false, users: users, evidence: trail.evidence, judged: "purchase_reported")
            {
                findings.append(outside)
                continue
            }
            if carriers.isEmpty {
                var reported = FindingFacts()
                reported.set(.reportedMs, reportedMs)
                findings.append(make(.droppedOrderNeverSent, reported))
                continue
            }
            let answered = carriers.filter(\.fact.isAnswered)
            if !answered.isEmpty && answered.allSatisfy(\.fact.isSandboxAnswer) {
                findings.append(sandboxRefused(answered, c, make))
                continue
            }
            if c.isPending(t) { continue }
            var facts = FindingFacts()
            facts.set(.requestIds, texts: carriers.map(c.requestId))
            let productionAnswers = carriers.filter(\.fact.isProductionSuccess)
            if let shown = productionAnswers.first(where: \.fact.finalContains) {
                facts.set(.proofRequestId, c.requestId(shown))
                findings.append(make(.droppedOrderNotCredited, facts))
            } else if let answered = productionAnswers.first {
                facts.set(.proofRequestId, c.requestId(answered))
                // Rule 21: a receipt made before the purchase cannot list it (every such answer's receipt).
                let created = productionAnswers.map(\.fact.finalReceiptCreatedMs)
                if created.allSatisfy({ $0.map { $0 < reportedMs } ?? false }) {
                    facts.set(.receiptCreatedMs, created.compactMap { $0 }.max()!)
                    facts.set(.reportedMs, reportedMs)
                    findings.append(make(.droppedOrderStaleReceipt, facts))
                } else {
                    findings.append(make(.droppedOrderNotInReceipt, facts))
                }
            } else if let failed = carriers.filter({ ($0.fact.status ?? 0) != 0 }).max(by: { $0.fact.latestMs < $1.fact.latestMs }),
                let status = failed.fact.status
            {
                facts.set(.proofRequestId, c.requestId(failed))
                facts.set(.status, Int64(status))
                findings.append(make(.droppedOrderVerifyFailed, facts))
            } else {
                findings.append(make(.droppedOrderNoVerifyResponse, facts))
            }
        }
        return findings
    }

    /// Info `sandbox_refused`: no money was paid. Reason `environment_conflict` when an answer's
    /// environment signals disagree (rule 24); a 21007 (a sandbox receipt sent to production) the server
    /// never retried against the sandbox says so.
    private static func sandboxRefused(
        _ answered: [ReconcileContext.Carrier], _ c: ReconcileContext, _ make: (FindingReason, FindingFacts) -> Finding
    ) -> Finding {
        var facts = FindingFacts()
        facts.set(.requestIds, texts: answered.map(c.requestId))
        if answered.contains(where: \.fact.environmentConflict) { return make(.sandboxRefusedEnvironmentConflict, facts) }
        if answered.contains(where: { $0.fact.status == 21007 }) { facts.set(.status, 21007) }
        return make(.sandboxRefusedSandboxReceipt, facts)
    }
}
