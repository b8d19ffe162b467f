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
            func make(_ kind: FindingKind, _ reason: String, _ detail: String) -> Finding {
                c.finding(
                    kind, reason, t, users: users, environment: c.environments(carriers), firstSeenMs: trail.firstSeenMs,
                    evidence: trail.evidence, detail: detail)
            }
            let reportedMs = c.facts.clients(t).filter { $0.fact.state == .purchased }.map(\.fact.tsMs).min()!
            if let outside = c.outsideWindow(
                t, dateMs: c.purchaseDateMs(t), appleOnly: false, users: users, evidence: trail.evidence, what: "purchase reported")
            {
                findings.append(outside)
                continue
            }
            if carriers.isEmpty {
                findings.append(make(.droppedOrder, "never_sent", "client reported purchased; no server request carried it"))
                continue
            }
            let answered = carriers.filter(\.fact.isAnswered)
            if !answered.isEmpty && answered.allSatisfy(\.fact.isSandboxAnswer) {
                findings.append(sandboxRefused(answered, c, make))
                continue
            }
            if c.isPending(t) { continue }
            let requests = "requests " + carriers.map(c.requestId).joined(separator: ", ")
            let productionAnswers = carriers.filter(\.fact.isProductionSuccess)
            if let shown = productionAnswers.first(where: \.fact.finalContains) {
                findings.append(
                    make(
                        .droppedOrder, "not_credited",
                        "verified by Apple and present in the receipt of \(c.requestId(shown)), never granted (\(requests))"))
            } else if let answered = productionAnswers.first {
                // Rule 21: a receipt made before the purchase cannot list it (every such answer's receipt).
                let created = productionAnswers.map(\.fact.finalReceiptCreatedMs)
                if created.allSatisfy({ $0.map { $0 < reportedMs } ?? false }) {
                    findings.append(
                        make(
                            .droppedOrder, "stale_receipt",
                            "the receipt Apple verified in \(c.requestId(answered)) was created at \(Timestamp.iso(created.compactMap { $0 }.max()!)), "
                                + "before the purchase reported at \(Timestamp.iso(reportedMs)): it cannot show it; "
                                + "re-query Apple by transaction id (\(requests))"))
                } else {
                    findings.append(
                        make(
                            .droppedOrder, "not_in_receipt",
                            "verified by Apple (status 0) in \(c.requestId(answered)) but absent from the receipt (\(requests))"))
                }
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

    /// Info `sandbox_refused`: no money was paid. Reason `environment_conflict` when an answer's
    /// environment signals disagree (rule 24); a 21007 (a sandbox receipt sent to production) the server
    /// never retried against the sandbox says so.
    private static func sandboxRefused(
        _ answered: [ReconcileContext.Carrier], _ c: ReconcileContext, _ make: (FindingKind, String, String) -> Finding
    ) -> Finding {
        let requests = answered.map(c.requestId).joined(separator: ", ")
        if answered.contains(where: \.fact.environmentConflict) {
            return make(
                .sandboxRefused, "environment_conflict",
                "Apple's answer (\(requests)) is labelled Production or names no environment, but its receipt_type or "
                    + "subscription periods (an hour or less) are the sandbox's: no production payment is proven; nothing was granted")
        }
        if answered.contains(where: { $0.fact.status == 21007 }) {
            return make(
                .sandboxRefused, "sandbox_receipt",
                "Apple answered 21007 (a sandbox receipt sent to production) in \(requests) and the server never retried it "
                    + "against the sandbox; nothing was granted: no money was paid")
        }
        return make(.sandboxRefused, "sandbox_receipt", "every answer was from the sandbox and nothing was granted: no money was paid")
    }
}
