import IAPAuditModel

/// What people did (`iap-audit resolve`, rule 25) in a trace's verdict, before the next run reads it: a second agent
/// must not credit again what a first one credited by hand.
enum TraceManualActions {
    /// `action` (decided by finding `f`) once the people's actions are known: none when they closed the finding (the next
    /// run resolves it), else the action with the people's actions said.
    static func judged(_ action: (TraceAction, String), _ f: Finding, _ trace: TransactionTrace) -> (TraceAction, String) {
        let done = trace.manualActions
        guard !done.isEmpty else { return action }
        let said = done.map(\.named).joined(separator: "; ")
        if ManualActionRule.closes(done, f) {
            return (
                .noAction,
                "no action: \(said) (the next run resolves \(f.kind.rawValue):\(f.transactionId)); it called for: \(action.1)"
            )
        }
        return (action.0, action.1 + "; by hand so far: \(said)")
    }

    /// A purchase credited by hand and by the server that no finding names yet (the next run makes it
    /// `duplicate_credit/manual_and_automatic`): take one credit back.
    static func doubleCredit(_ trace: TransactionTrace, _ facts: TraceFacts) -> (TraceAction, String)? {
        let byHand = trace.manualActions.filter { $0.kind == .credited }
        guard !byHand.isEmpty, !facts.credits.isEmpty, !trace.manualActions.contains(where: { $0.kind == .revoked }) else { return nil }
        let server = facts.credits.map { "request \($0.requestId) (\($0.userId ?? "no user"))" }.joined(separator: ", ")
        return (
            .revoke,
            "revoke one credit: credited twice for one payment, \(byHand.map(\.named).joined(separator: "; ")) and by the server: "
                + "\(server); then record it (iap-audit resolve \(trace.transactionId) --revoked)"
        )
    }
}
