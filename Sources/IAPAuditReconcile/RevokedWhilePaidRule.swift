import IAPAuditModel

/// semantics.md rule 19: `dropped_order/revoked_while_paid` — the server took back a purchase the customer
/// paid for and Apple never refunded: a revoke of T after its last grant leaves nobody holding T's
/// purchase, no trusted Apple record shows it refunded or revoked at or before the revoke, and its
/// expiry (if any, from the Apple record signed last) is after the revoke.
///
/// The customer paid: a grant of the purchase was credited on a production answer, or Apple confirms
/// the payment (rule 22). A revoke of a replayed grant while the payer keeps it is correct (somebody
/// still holds it); a refund dated after the revoke does not excuse it. With `--from`/`--to`, a purchase
/// dated outside them is info `outside_window` (rule 17: the revoke itself is never windowed).
enum RevokedWhilePaidRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions where !c.facts.revokes(t).isEmpty {
            let ids = c.purchase(t)
            // Once per purchase, under its first revoked id.
            if ids.count > 1 && ids.first(where: { !c.facts.revokes($0).isEmpty }) != t { continue }
            let grants = ids.flatMap { c.grants($0) }
            guard let lastGrantMs = grants.map(\.fact.tsMs).max() else { continue }
            guard grants.contains(where: { $0.isProven && !$0.fact.isSandboxAnswer }) || c.confirmation(t) != nil else { continue }
            let revokes = ids.flatMap { c.facts.revokes($0) }.sorted { ($0.fact.tsMs, $0.order) < ($1.fact.tsMs, $1.order) }
            // The revoke after which nobody holds the purchase.
            guard
                let revoke = revokes.first(where: { $0.fact.tsMs >= lastGrantMs && c.holders(grants, revokes, at: $0.fact.tsMs).isEmpty })
            else { continue }
            let revokeMs = revoke.fact.tsMs
            let listings = ids.flatMap { c.facts.listings($0) }.filter(c.isTrusted)
            if listings.contains(where: { ($0.fact.cancellationDateMs ?? Int64.max) <= revokeMs }) { continue }
            // Apple's records in their own order (signed or issue date), never in the order they arrived.
            let latest = listings.filter { $0.fact.expiresDateMs != nil }.max { issued($0) < issued($1) }
            if let expires = latest?.fact.expiresDateMs, expires <= revokeMs { continue }
            let users = ExactText.distinctSorted(grants.compactMap { c.text($0.fact.userId) })
            let trail = c.trail(ids, grants)
            let refunds = listings.filter { $0.fact.cancellationDateMs != nil }
            let evidence =
                trail.evidence + revokes.map { c.location($0.fact.fileId, $0.fact.line) } + (latest.map { [c.location($0)] } ?? [])
                + refunds.map(c.location)
            findings.append(
                c.droppedPurchase(t, .droppedOrderRevokedWhilePaid, users: users, grants: grants, trail: trail, evidence: evidence) {
                    facts in
                    facts.set(.revokedMs, revokeMs)
                    facts.set(.lastGrantedMs, lastGrantMs)
                    facts.set(.expiresMs, latest?.fact.expiresDateMs)
                    // Apple refunded it only after the revoke.
                    facts.set(.cancelledMs, refunds.compactMap(\.fact.cancellationDateMs).min())
                })
        }
        return findings
    }

    /// When Apple issued the record: its signed date (a verifyReceipt answer's `request_date`), else the
    /// transaction's, else when it was received.
    static func issued(_ l: ReconcileContext.Listing) -> Int64 {
        l.fact.issuedDateMs ?? l.fact.itemSignedDateMs ?? l.fact.receivedAtMs ?? Int64.min
    }
}
