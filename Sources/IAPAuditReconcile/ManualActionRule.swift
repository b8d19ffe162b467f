import IAPAuditModel

/// semantics.md rule 25: what a person did (`iap-audit resolve`, table `manual_action`) is evidence.
///
/// - A purchase credited by hand and by the server (any automatic grant of any id of its purchase, before or after) is a
///   `duplicate_credit` of reason `manual_and_automatic`, naming both.
/// - `settle` leaves out the findings a person's action closed: a dropped order credited or paid back by hand, or refused
///   while Apple does not confirm the payment; a finding that calls for credits to be taken back, once as many were
///   taken back by hand (`revoked`); a finding that calls for units to be credited, once as many were credited by hand.
///   The lifecycle then resolves them, naming the action.
enum ManualActionRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        guard !c.audit.manual.isEmpty else { return [] }
        var findings: [Finding] = []
        // The few transactions people acted on, found in this partition by their id (not every transaction's id made text).
        let acted = c.audit.manual.byTransaction.keys.compactMap { c.facts.local(of: GlobalId($0)) }.sorted()
        for t in acted {
            let credits = c.audit.manual.about(c.id(t)).filter { $0.kind == .credited }
            guard !credits.isEmpty else { continue }
            let ids = c.purchase(t)
            let grants = ids.flatMap { c.grants($0) }.sorted { $0.order < $1.order }
            guard !grants.isEmpty else { continue }
            var facts = FindingFacts()
            facts.set(.grants, objects: grants.map { [c.requestId($0), c.text($0.fact.userId), c.id($0.t)] })
            facts.set(.transactionIds, texts: ids.map(c.id))
            facts.set(.grantedTransactionIds, texts: ids.filter { !c.grants($0).isEmpty }.map(c.id))
            facts.set(.manualCredits, objects: credits.map { [String($0.actionId), $0.by, $0.atMs, $0.userId, $0.note] })
            let users = grants.map { c.text($0.fact.userId) } + credits.map(\.userId)
            let trail = c.trail(ids, grants)
            // Given away at the second credit, the later of the first grant and the first manual credit.
            let lossAtMs = max(grants[0].fact.tsMs, credits[0].atMs)
            findings.append(
                c.finding(
                    .duplicateCreditManualAndAutomatic, t, users: ExactText.distinctSorted(users.compactMap { $0 }),
                    environment: c.environments(grants), firstSeenMs: min(trail.firstSeenMs ?? credits[0].atMs, credits[0].atMs),
                    lossAtMs: lossAtMs, evidence: trail.evidence, facts: facts))
        }
        return findings
    }

    /// `findings` without those a person's action closed (`manual`).
    static func settle(_ findings: [Finding], _ manual: ManualActions) -> [Finding] {
        guard !manual.isEmpty else { return findings }
        return findings.filter { f in
            let done = manual.about(f.transactionId)
            return done.isEmpty || !closes(done, f)
        }
    }

    /// Whether `done` (the actions about the finding's transaction) closes `f`.
    static func closes(_ done: [ManualAction], _ f: Finding) -> Bool {
        if f.reason == FindingReason.duplicateCreditManualAndAutomatic.name {
            return units(done, .revoked) >= 1
        }
        if f.kind == .droppedOrder {
            if done.contains(where: { $0.kind == .refunded }) { return true }
            if done.contains(where: { $0.kind == .refused }) && f.appleConfirmation != .confirmed { return true }
            let owed = FindingAction.of(f).quantity ?? 1
            return units(done, .credited) >= max(owed, 1)
        }
        let action = FindingAction.of(f)
        switch action.code {
        case .revoke: return units(done, .revoked) >= max(action.quantity ?? 1, 1)
        case .credit: return units(done, .credited) >= max(action.quantity ?? 1, 1)
        case .askApple where f.kind == .invalidCredit: return units(done, .revoked) >= 1
        default: return false
        }
    }

    /// The units of `kind` people acted on (an action without a quantity counts one).
    private static func units(_ done: [ManualAction], _ kind: ManualAction.Kind) -> Int64 {
        done.filter { $0.kind == kind }.reduce(0) { $0 + max($1.quantity ?? 1, 1) }
    }
}
