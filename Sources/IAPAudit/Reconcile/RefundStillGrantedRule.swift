/// SEMANTICS rule 12: Apple shows a cancellation date for a credited transaction and some user
/// granted it kept it: no revoke of it (for that user, or without a user) at or after that user's
/// last grant. Reason `cancelled_not_revoked`; the row lists who still holds it.
///
/// The cancellation date is any listing's `cancellation_date` (verifyReceipt, app receipt) or JWS
/// `revocationDate` (signed transaction, REFUND/REVOKE notification, Server API page); listings whose
/// signature failed prove nothing. A REFUND_REVERSED notification signed after the newest revocation
/// clears it: Apple took the refund back.
enum RefundStillGrantedRule {
    static func findings(_ context: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for (id, allListings) in context.items {
            // A revocation counts from Apple's unsigned answers or a verified signed listing (never from an
            // unchecked decoded payload, which anyone could write).
            let listings = allListings.filter {
                context.responses[$0.response].source.isSigned ? $0.item.signature == .verified : !$0.item.signature.failed
            }
            guard let cancelledMs = listings.compactMap(\.item.cancellationDateMs).min(),
                let newestRevocationMs = listings.compactMap(\.item.cancellationDateMs).max(),
                let grants = context.grants[id], grants.contains(where: \.isProven)
            else { continue }
            if let reversedMs = context.refundReversals[id]?.max(), reversedMs > newestRevocationMs { continue }
            var lastGrant: [String?: Int64] = [:]
            for grant in grants {
                let view = context.requests[grant.requestIndex]
                lastGrant[view.userId] = max(lastGrant[view.userId] ?? Int64.min, view.tsMs)
            }
            let revokes = context.revokes[id] ?? []
            let holders = lastGrant.filter { user, grantedAt in
                !revokes.contains { ($0.userId == nil || $0.userId == user) && $0.tsMs >= grantedAt }
            }.keys
            if holders.isEmpty { continue }
            let indexes = grants.map(\.requestIndex)
            let trail = context.trail(id, requests: indexes)
            let responseEvidence = listings.map { context.responses[$0.response].location }
            var reason = listings.compactMap(\.item.cancellationReason).first.map { ", cancellation_reason \($0)" } ?? ""
            if let type = listings.compactMap(\.item.revocationType).first { reason += ", revocationType \(type)" }
            if let share = listings.compactMap(\.item.revocationPercentage).first {
                reason += ", revocationPercentage \(share) (\(Self.percent(share)) refunded)"
            }
            findings.append(
                context.finding(
                    .refundStillGranted, "cancelled_not_revoked", id, users: Array(holders), environment: context.environments(indexes),
                    firstSeenMs: trail.firstSeenMs, evidence: trail.evidence + responseEvidence + revokes.map(\.location),
                    detail:
                        "cancelled at \(Timestamp.iso(cancelledMs))\(reason); still granted to \(holders.map { $0 ?? "(no user)" }.sorted().joined(separator: ", "))"
                ))
        }
        return findings
    }

    /// Thousandths of a percent as text: 50000 → `50%`, 33333 → `33.333%`.
    static func percent(_ milliPercent: Int) -> String {
        let whole = milliPercent / 1000
        let fraction = milliPercent % 1000
        if fraction == 0 { return "\(whole)%" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)%"
    }
}
