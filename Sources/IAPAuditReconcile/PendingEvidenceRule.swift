import IAPAuditModel

/// semantics.md rule 26: a problem whose clearing evidence would come from a feed that ends within the grace of the
/// purchase is not the problem yet but info `pending_evidence`, naming the feed it waits for. It becomes the problem the
/// first run whose feed ends the grace or more after the purchase.
///
/// | problem | waits for | the grace runs from |
/// |---|---|---|
/// | `dropped_order/never_sent` | the server log (the request) | the client's `purchased` report |
/// | `dropped_order/in_receipt_never_credited` | the server log (the grant) | the purchase as rule 17 dates it |
/// | `refund_still_granted/cancelled_not_revoked` | the server log (the revoke) | the refund (`loss_at`) |
/// | `invalid_credit/no_verify_response` | Apple's answers | the first grant without proof (`loss_at`) |
///
/// Run after `ManualActionRule.settle`, on every finding a partition or `CrossPartition` made.
enum PendingEvidenceRule {
    /// The newest record of each feed over the whole ledger, UTC ms (nil: the ledger has none of that feed, and nothing
    /// waits for it), and the grace (ms).
    struct FeedEnds: Sendable {
        /// The server log's newest `ts`.
        var serverLogMs: Int64?
        /// Apple's newest `received_at`.
        var appleAnswersMs: Int64?
        var graceMs: Int64
    }

    /// `findings` with each problem at the edge of its feed made `pending_evidence`.
    static func settle(_ findings: [Finding], _ ends: FeedEnds) -> [Finding] {
        guard ends.serverLogMs != nil || ends.appleAnswersMs != nil else { return findings }
        return findings.map { pending($0, ends) ?? $0 }
    }

    /// The pending finding `f` is while its feed ends inside the grace; nil when it is the problem.
    static func pending(_ f: Finding, _ ends: FeedEnds) -> Finding? {
        let awaited: (FindingReason, Int64?)
        switch f.cause {
        case .droppedOrderNeverSent?, .droppedOrderInReceiptNeverCredited?, .refundStillGrantedCancelledNotRevoked?:
            awaited = (.pendingEvidenceAwaitingServerLog, ends.serverLogMs)
        case .invalidCreditNoVerifyResponse?: awaited = (.pendingEvidenceAwaitingAppleAnswer, ends.appleAnswersMs)
        default: return nil
        }
        // The feed ends less than the grace after the purchase: its next delivery may still clear it.
        guard let feedEndMs = awaited.1, let sinceMs = f.lossAtMs ?? f.firstSeenMs else { return nil }
        // Times read from a damaged ledger may be far apart: a difference past Int64's bounds is no edge.
        let (after, overflow) = feedEndMs.subtractingReportingOverflow(sinceMs)
        guard overflow ? feedEndMs < sinceMs : after < ends.graceMs else { return nil }
        var facts = FindingFacts()
        facts.set(.wouldBe, "\(f.kind.rawValue)/\(f.reason)")
        facts.set(.pendingSinceMs, sinceMs)
        facts.set(.feedEndMs, feedEndMs)
        facts.set(.graceMs, ends.graceMs)
        var made = Finding(
            kind: awaited.0.kind, reason: awaited.0.name, transactionId: f.transactionId,
            originalTransactionId: f.originalTransactionId, productId: f.productId, userIds: f.userIds, environment: f.environment,
            firstSeenMs: f.firstSeenMs, evidence: f.evidence, facts: facts)
        made.detail = FindingSentence.text(made)
        return made
    }
}
