/// SEMANTICS rule 8: the customer reported a purchase and nobody was granted it.
///
/// Reasons, first that applies: `never_sent`; info `sandbox_refused` when every answered request
/// was a sandbox answer; nothing while pending; `not_credited`; `not_in_receipt`; `verify_failed`;
/// `no_verify_response`.
enum DroppedOrderRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, reports) in context.clientReports where reports.contains(where: { $0.state == .purchased }) {
            if context.isGranted(billingEventOf: id) { continue }
            let carriers = context.carriedBy[id] ?? []
            let trail = context.trail(id, requests: carriers)
            let users = reports.map(\.userId) + carriers.map { context.requests[$0].userId }
            func make(_ kind: FindingKind, _ reason: String, _ detail: String) -> Finding {
                context.finding(
                    kind, reason, id, users: users, environment: context.environments(carriers),
                    firstSeenMs: trail.firstSeenMs, evidence: trail.evidence, detail: detail)
            }
            if carriers.isEmpty {
                findings.append(make(.droppedOrder, "never_sent", "client reported purchased; no server request carried it"))
                continue
            }
            let views = carriers.map { context.requests[$0] }
            let answered = views.filter(\.isAnswered)
            if !answered.isEmpty && answered.allSatisfy(\.isSandboxAnswer) {
                findings.append(
                    make(
                        .sandboxRefused, "sandbox_receipt",
                        "every answer was from the sandbox and nothing was granted: no money was paid"))
                continue
            }
            if context.isPending(id) { continue }
            let requests = "requests " + views.map(\.request.requestId).joined(separator: ", ")
            if let shown = views.first(where: { $0.isProductionSuccess && $0.finalItemIds.contains(id) }) {
                findings.append(
                    make(
                        .droppedOrder, "not_credited",
                        "verified by Apple and present in the receipt of \(shown.request.requestId), never granted (\(requests))"))
            } else if let answered = views.first(where: { $0.isProductionSuccess }) {
                findings.append(
                    make(
                        .droppedOrder, "not_in_receipt",
                        "verified by Apple (status 0) in \(answered.request.requestId) but absent from the receipt (\(requests))"))
            } else if let failed = views.filter({ ($0.status ?? 0) != 0 }).max(by: { $0.latestMs < $1.latestMs }),
                let status = failed.status
            {
                findings.append(
                    make(
                        .droppedOrder, "verify_failed",
                        "last status \(status): \(VerifyStatus.meaning(status)) (\(failed.request.requestId); \(requests))"))
            } else {
                findings.append(make(.droppedOrder, "no_verify_response", "Apple never answered a request that carried it (\(requests))"))
            }
        }
        return findings
    }
}
