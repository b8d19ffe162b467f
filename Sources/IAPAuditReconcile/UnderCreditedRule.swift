import IAPAuditModel

/// SEMANTICS rule 20: `dropped_order/under_credited` — Apple's quantity for T (receipt item `quantity`,
/// JWS `quantity`, from a record that proves payment) is above the credited quantity: the server log's
/// `credited_quantity` (the largest single grant), else the client's reported `quantity`, else not
/// compared. With `--from`/`--to`, a purchase dated outside them is info `outside_window`.
enum UnderCreditedRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            let grants = c.grants(t)
            guard !grants.isEmpty else { continue }
            let proving = c.facts.listings(t).filter { c.provesPayment($0) && $0.fact.quantity != nil }
            guard let paid = proving.compactMap(\.fact.quantity).max() else { continue }
            let logged = grants.compactMap(\.fact.creditedQuantity).max()
            guard let credited = logged ?? c.facts.clients(t).compactMap(\.fact.quantity).max(), paid > credited else { continue }
            let users = c.users(grants)
            let trail = c.trail(t, grants)
            let evidence = trail.evidence + proving.map(c.location)
            if let outside = c.outsideWindow(
                t, dateMs: c.purchaseDateMs(t), appleOnly: false, users: users, evidence: evidence, what: "purchase under-credited")
            {
                findings.append(outside)
                continue
            }
            let source = logged != nil ? "the server log's credited_quantity" : "the quantity the client reported"
            findings.append(
                c.finding(
                    .droppedOrder, "under_credited", t, users: users, environment: c.environments(grants), firstSeenMs: trail.firstSeenMs,
                    evidence: evidence, detail: "paid \(paid), credited \(credited) (\(source)): \(paid - credited) unit(s) not delivered"))
        }
        return findings
    }
}
