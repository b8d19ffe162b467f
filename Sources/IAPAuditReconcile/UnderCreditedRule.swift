import IAPAuditModel

/// semantics.md rule 20: `dropped_order/under_credited` — Apple's quantity for T (receipt item `quantity`,
/// JWS `quantity`, from a record that proves payment) is above the credited quantity: the server log's
/// `credited_quantity` (the largest single grant), else the client's reported `quantity`, else not
/// compared. With `--from`/`--to`, a purchase dated outside them is info `outside_window`.
enum UnderCreditedRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            // The credited quantity first (most grants log none and report none: nothing to compare).
            var logged: Int64? = nil
            var granted = false
            for carrier in c.facts.carriers(t) where carrier.fact.isGrant {
                granted = true
                if let q = carrier.fact.creditedQuantity { logged = max(logged ?? q, q) }
            }
            guard granted, let credited = logged ?? c.facts.clients(t).lazy.compactMap(\.fact.quantity).max() else { continue }
            var paid: Int64? = nil
            for l in c.facts.listings(t) {
                if let q = l.fact.quantity, q > credited, c.provesPayment(l) { paid = max(paid ?? q, q) }
            }
            guard let paid else { continue }
            let grants = c.grants(t)
            let proving = c.facts.listings(t).filter { ($0.fact.quantity ?? 0) > credited && c.provesPayment($0) }
            let users = c.users(grants)
            let trail = c.trail(t, grants)
            let evidence = trail.evidence + proving.map(c.location)
            findings.append(
                c.droppedPurchase(t, .droppedOrderUnderCredited, users: users, grants: grants, trail: trail, evidence: evidence) { facts in
                    facts.set(.quantityPaid, paid)
                    facts.set(.quantityCredited, credited)
                    facts.set(.quantitySource, logged != nil ? "credited_quantity" : "quantity")
                })
        }
        return findings
    }
}
