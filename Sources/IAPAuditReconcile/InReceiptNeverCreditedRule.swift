import IAPAuditModel

/// semantics.md rule 9: a production purchase in Apple's data that nobody reported or was granted —
/// Apple took money that nobody credited (`dropped_order` / `in_receipt_never_credited`).
///
/// Apple's data: a status-0 verifyReceipt response, Notification V1 or Server API page, or a JWS
/// transaction, Notification V2 or app receipt whose signature is `verified`.
/// Another id of a purchase someone was granted or reported (rule 18: a re-issued id, a restore) is no
/// new dropped order. A purchase dated before the audit window (`--from`, else the logs' earliest `ts`)
/// or after `--to` is info `outside_window` (rule 17). A subscription period that no request links to a
/// user is attributed to the users granted that subscription (`CrossPartition`).
enum InReceiptNeverCreditedRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var qualifyingById: [Int32: [ReconcileContext.Listing]] = [:]
        var conflictingById: [Int32: [ReconcileContext.Listing]] = [:]
        for t in c.transactions where !c.facts.listings(t).isEmpty {
            if c.isReported(purchaseOf: t) || c.isGranted(purchaseOf: t) || c.isPending(t) { continue }
            let qualifying = c.facts.listings(t).filter { qualifies($0, c) }
            if !qualifying.isEmpty {
                qualifyingById[t] = qualifying
                continue
            }
            // Rule 24: listed only by records whose environment signals disagree — no production payment.
            let conflicting = c.facts.listings(t).filter {
                $0.fact.status == 0 && $0.fact.environmentConflict && c.provesPayment($0, ignoringConflict: true)
            }
            if !conflicting.isEmpty { conflictingById[t] = conflicting }
        }
        var findings: [Finding] = []
        for (t, conflicting) in conflictingById {
            let ids = c.purchase(t)
            if ids.contains(where: { qualifyingById[$0] != nil }) || ids.first(where: { conflictingById[$0] != nil }) != t { continue }
            var facts = FindingFacts()
            facts.set(.appleRecordCount, conflicting.count)
            findings.append(
                c.finding(
                    .sandboxRefusedEnvironmentConflict, t, users: conflicting.filter(\.linked).map { c.text($0.user) },
                    environment: conflicting.lazy.compactMap { $0.fact.environmentName(c.facts.bytes) }.first,
                    firstSeenMs: (conflicting.compactMap(\.fact.receivedAtMs) + conflicting.compactMap(\.fact.purchaseDateMs)).min(),
                    evidence: conflicting.map(c.location), facts: facts))
        }
        for (t, qualifying) in qualifyingById {
            // One purchase is one dropped order, under its first qualifying id.
            if c.purchase(t).first(where: { qualifyingById[$0] != nil }) != t { continue }
            let linkedUsers = qualifying.filter(\.linked).map { c.text($0.user) }
            let finding: Finding
            if let outside = c.outsideWindow(
                t, dateMs: c.applePurchaseDateMs(of: c.purchase(t)), appleOnly: true, users: linkedUsers,
                evidence: qualifying.map(c.location), judged: "purchase_only_apple_lists")
            {
                finding = outside
            } else {
                finding = make(t, qualifying, linkedUsers, c)
            }
            // A renewal no request links to anyone: the users granted its subscription (another partition's).
            if linkedUsers.allSatisfy({ $0 == nil }), c.productType(t) == .autoRenewable || c.isSubscriptionLike(t) {
                c.wait(.owners(finding, original: GlobalId(c.originalTransactionId(t) ?? c.id(t))))
            } else {
                findings.append(finding)
            }
        }
        return findings
    }

    private static func make(_ t: Int32, _ qualifying: [ReconcileContext.Listing], _ linkedUsers: [String?], _ c: ReconcileContext)
        -> Finding
    {
        let firstSeen = (qualifying.compactMap(\.fact.receivedAtMs) + qualifying.compactMap(\.fact.purchaseDateMs)).min()
        var facts = FindingFacts()
        facts.set(.appleRecordCount, qualifying.count)
        facts.set(.appleSources, texts: Self.sources(qualifying, c))
        // A record without `environment` (old verifyReceipt answers) is not Sandbox, but not labelled
        // Production either: say which.
        if qualifying.contains(where: { $0.fact.environmentName(c.facts.bytes) == nil }) { facts.set(.environmentUnlabelled, 1) }
        // Still a dropped order by rule 9, but a refunded one: Apple gave the money back.
        facts.set(.cancelledMs, qualifying.compactMap(\.fact.cancellationDateMs).min())
        return c.finding(
            .droppedOrderInReceiptNeverCredited, t, users: linkedUsers,
            environment: qualifying.lazy.compactMap { $0.fact.environmentName(c.facts.bytes) }.first,
            firstSeenMs: firstSeen, evidence: qualifying.map(c.location), facts: facts)
    }

    /// A production, status-0 listing of ours that Apple stands behind: an unsigned Apple answer
    /// (verifyReceipt, Notification V1, Server API JSON) or a signed record whose signature was `verified`
    /// (an unchecked decoded payload or iOS 6 receipt, which anyone could write, proves no payment).
    /// Environment signals that disagree prove no production payment (rule 24).
    static func qualifies(_ l: ReconcileContext.Listing, _ c: ReconcileContext) -> Bool { l.fact.status == 0 && c.provesPayment(l) }

    /// The distinct sources with their signature state, e.g. `verify_receipt`, `signed_transaction verified`.
    static func sources(_ listings: [ReconcileContext.Listing], _ c: ReconcileContext) -> [String] {
        var seen: [String] = []
        for l in listings {
            let source = l.fact.source
            let text = source.isSigned ? "\(source.rawValue) \(l.fact.signatureText(c.facts.bytes))" : source.rawValue
            if !seen.contains(text) { seen.append(text) }
        }
        return seen
    }
}
