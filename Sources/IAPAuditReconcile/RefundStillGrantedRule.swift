import IAPAuditModel

/// semantics.md rule 12: Apple shows a cancellation date for a credited transaction and some user
/// granted it kept it: no revoke of it (for that user, or without a user) at or after that user's
/// last grant. Reason `cancelled_not_revoked`; the row lists who still holds it.
///
/// The cancellation date is any listing's `cancellation_date` (verifyReceipt, app receipt) or JWS
/// `revocationDate` (signed transaction, REFUND/REVOKE notification, Server API page); listings whose
/// signature failed, or decoded payloads given unsigned, prove nothing (`TrustLevel.needed`). A REFUND_REVERSED
/// notification at that level, signed after the newest revocation, clears it: Apple took the refund back.
///
/// Rule 23: of a non-consumable, auto-renewable or non-renewing product, a holder who holds a later
/// credited, unrefunded purchase of the product is info `refund_superseded/later_purchase` instead —
/// settled by `CrossPartition`, where the holdings of every partition meet.
enum RefundStillGrantedRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions where !c.facts.listings(t).isEmpty {
            let all = c.facts.listings(t)
            // A revocation counts from Apple's unsigned answers or a verified signed listing (never from an
            // unchecked decoded payload, which anyone could write).
            let listings = all.filter(c.isTrusted)
            guard let cancelledMs = listings.compactMap(\.fact.cancellationDateMs).min(),
                let newestRevocationMs = listings.compactMap(\.fact.cancellationDateMs).max()
            else { continue }
            let grants = c.grants(t)
            guard grants.contains(where: \.isProven) else { continue }
            let reversals = all.filter { $0.fact.refundReversed && c.isNotificationTrusted($0) }
                .map { $0.fact.issuedDateMs ?? $0.fact.itemSignedDateMs ?? Int64.max }
            if let reversedMs = reversals.max(), reversedMs > newestRevocationMs { continue }
            let revokes = c.facts.revokes(t)
            let holders = c.holders(grants, revokes)
            if holders.isEmpty { continue }
            let trail = c.trail(t, grants)
            var facts = FindingFacts()
            facts.set(.cancelledMs, cancelledMs)
            facts.set(.cancellationReason, c.text(listings.compactMap(\.fact.cancellationReason).first))
            facts.set(.revocationType, c.text(listings.compactMap(\.fact.revocationType).first))
            facts.set(.revocationPercentage, listings.compactMap(\.fact.revocationPercentage).first.map { Int64($0) })
            // The loss happens at the refund (money back, goods kept), or when a holder's holding began if that was later:
            // their first grant since their last revoke.
            let held = holders.map { holder in
                let user = holder.map(ExactText.init)
                let revokedMs =
                    revokes.filter { $0.fact.userId == nil || c.text($0.fact.userId).map(ExactText.init) == user }
                    .map(\.fact.tsMs).max() ?? Int64.min
                let since = grants.filter { c.text($0.fact.userId).map(ExactText.init) == user && $0.fact.tsMs > revokedMs }
                return max(cancelledMs, since.map(\.fact.tsMs).min() ?? cancelledMs)
            }
            facts.set(.holders, texts: Self.sorted(holders))
            let finding = c.finding(
                .refundStillGrantedCancelledNotRevoked, t, users: Array(holders), environment: c.environments(grants),
                firstSeenMs: trail.firstSeenMs, lossAtMs: held.min(),
                evidence: trail.evidence + listings.map(c.location) + revokes.map { c.location($0.fact.fileId, $0.fact.line) },
                facts: facts)
            if let type = c.productType(t), type != .consumable, let product = c.productId(t), holders.contains(where: { $0 != nil }) {
                c.wait(
                    .laterPurchase(
                        finding, holders: holders, productId: product,
                        purchaseMs: c.applePurchaseDateMs(t) ?? grants.map(\.fact.tsMs).min()!,
                        ids: c.purchase(t).map { c.facts.ids[Int($0)] }))
            } else {
                findings.append(finding)
            }
        }
        return findings
    }

    /// Holders in byte order, a grant without a user (nil) last.
    static func sorted(_ holders: [String?]) -> [String?] {
        holders.sorted { a, b in
            guard let a else { return false }
            guard let b else { return true }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }
}
