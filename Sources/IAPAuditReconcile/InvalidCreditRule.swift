import IAPAuditModel

/// semantics.md rule 13: a grant without proof (the customer got the goods; Apple never confirmed).
/// One row per transaction; reason by precedence `signature_invalid` > `bundle_mismatch` >
/// `nonzero_status` > `not_in_receipt` > `no_verify_response`.
enum InvalidCreditRule {
    static func findings(_ c: ReconcileContext) -> [Finding] {
        var findings: [Finding] = []
        for t in c.transactions {
            let unproven = c.grants(t).filter { !$0.isProven }
            guard let strongest = unproven.map(\.proof).min(by: { $0.rawValue < $1.rawValue }) else { continue }
            let trail = c.trail(t, unproven)
            var facts = FindingFacts()
            facts.set(.unprovenGrants, objects: unproven.map { [c.requestId($0), $0.proof.reason] })
            // Apple's later word does not clear the finding (rule 13 judges the grant by its own answer), but it says the
            // credit is paid for: the action is then to check the server's verification, not to take the credit back.
            if let record = c.confirmation(t) { facts.set(.appleConfirmsAt, c.location(record).description) }
            findings.append(
                c.finding(
                    strongest.cause!, t, users: c.users(unproven), environment: c.environments(unproven),
                    // Given away at the first grant without proof (the purchase may be older).
                    firstSeenMs: trail.firstSeenMs, lossAtMs: unproven.map(\.fact.tsMs).min(), evidence: trail.evidence, facts: facts))
        }
        return findings
    }
}
