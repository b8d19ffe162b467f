import IAPAuditModel

/// The verdict on a traced transaction (README "Investigating one transaction"): whether Apple confirms
/// the payment (semantics.md rule 22, from each listing's `PaymentEvidence`, as the rules judge it), who
/// was credited and whether it still holds, Apple's refund, and the next action in words. The findings
/// decide the action (`TraceActions`); without a problem finding the records do.
package enum TraceJudge {
    /// Judges every transaction of `result` at its ledger's as-of, and what to do when none answers.
    package static func judge(_ result: inout TraceResult) {
        for i in result.transactions.indices {
            TraceCreditQuantity.fill(&result.transactions[i])
            result.transactions[i].verdict = verdict(result.transactions[i])
        }
        result.nextAction = TraceResultActions.next(result)
        // Records a close imported after the last run (or a killed run's): the findings have not judged them yet (a
        // grant there would not have resolved the dropped order the findings still show). Records removed since (a file
        // emptied or forgotten): any finding may rest on them.
        let unjudged = Set(result.unjudgedFiles)
        for i in result.transactions.indices {
            let why: String
            if result.transactions[i].events.contains(where: { unjudged.contains($0.location.file) }) {
                why = "records of this transaction were imported after the ledger's last run"
            } else if !result.removedFiles.isEmpty {
                why = "records the ledger's last run held were removed since"
            } else {
                continue
            }
            result.transactions[i].verdict?.action = .notJudged
            result.transactions[i].verdict?.nextAction =
                "not judged: \(why) (by a close, or a run that did not complete), and its findings do not judge that yet: run "
                + "iap-audit run on the same inputs, then trace again"
            result.transactions[i].verdict?.rerunFirst()
        }
        // A run killed midway leaves a ledger without some of its records or findings: no verdict from it is sure
        // (a paid order it never credited showed "no action" before its answers were imported).
        if let status = result.runParameters["run_status"], status != "complete" {
            for i in result.transactions.indices {
                result.transactions[i].verdict?.action = .notJudged
                result.transactions[i].verdict?.nextAction = incompleteAction(status)
                result.transactions[i].verdict?.rerunFirst()
            }
        }
    }

    /// The next action of every transaction traced in a ledger whose last run did not complete.
    static func incompleteAction(_ status: String) -> String {
        "not judged: the ledger's last run is \(status) (stopped before it completed), so it may lack records and findings "
            + "of this transaction: run iap-audit run again on the same inputs, then trace again"
    }

    package static func verdict(_ trace: TransactionTrace) -> TraceVerdict {
        var trace = trace
        TraceCreditQuantity.fill(&trace)
        let facts = TraceFacts(trace)
        var verdict = TraceVerdict(
            apple: facts.appleWord, action: .noAction, nextAction: "",
            findingAction: FindingAction(code: .noAction, productId: trace.productId, transactionId: trace.transactionId, because: ""))
        (verdict.credits, verdict.revokes, verdict.refund) = (facts.credits, facts.revokes, facts.refund)
        verdict.refundReversed = facts.reversed
        (verdict.action, verdict.nextAction) = TraceActions.next(trace, facts)
        // The finding that decides the action carries it as the ledger holds it (`finding_action`, with its lifecycle);
        // without one, the action is the records' (its code from the next action's).
        if let f = TraceActions.deciding(trace) {
            verdict.findingAction = trace.action(of: f) ?? FindingAction.of(f).joined(with: trace.state(of: f))
            // Closed by a person's action the next run reads (rule 25): nothing to do now, whatever the ledger's row says.
            if let last = trace.manualActions.last, ManualActionRule.closes(trace.manualActions, f) {
                var a = verdict.findingAction
                (a.openCode, a.code, a.because) = (a.openCode ?? a.code, .noAction, verdict.nextAction)
                (a.note, a.by, a.atMs) = (last.note, last.by, last.atMs)
                verdict.findingAction = a
            }
        } else {
            (verdict.findingAction.code, verdict.findingAction.because) = (verdict.action.code, verdict.nextAction)
            // Delivered: the credits still held, when no refund stands (`TraceActions.fromRecords` says them).
            if facts.refund == nil { verdict.delivered = facts.held }
        }
        // What a rejected line holds is in no finding: fixing it comes first (found by a support user test).
        if !trace.rejectedLines.isEmpty {
            let one = trace.rejectedLines.count == 1
            let lines = trace.rejectedLines.map(\.location.description).joined(separator: ", ")
            verdict.action = .fixInput
            verdict.nextAction =
                "fix the rejected line\(one ? "" : "s") naming it (\(lines)) and run again: the run could not read \(one ? "it" : "them"), "
                + "so the findings and this verdict do not know what \(one ? "it holds" : "they hold"); as the ledger stands: "
                + verdict.nextAction
            (verdict.findingAction.code, verdict.findingAction.because) = (.fixInput, verdict.nextAction)
        }
        return verdict
    }
}

/// What the records of one traced transaction say, read once for the verdict.
struct TraceFacts {
    let transactionId: String
    let credits: [TraceCredit]
    let revokes: [TraceCredit]
    let refund: TraceRefund?
    /// The refund a REFUND_REVERSED took back (its record the reversal's), when it was.
    let reversed: TraceRefund?
    let appleWord: TraceVerdict.AppleWord
    /// Requests that posted it (or its original id), by time.
    let requests: [(TraceEvent, TraceRequest)]
    /// Apple's answers and records, by time: each with its listing of the transaction, if any.
    let apple: [(TraceEvent, TraceAppleRecord)]

    init(_ trace: TransactionTrace) {
        transactionId = trace.transactionId
        var requests: [(TraceEvent, TraceRequest)] = []
        var apple: [(TraceEvent, TraceAppleRecord)] = []
        for event in trace.events {
            switch event.detail {
            case .request(let r): requests.append((event, r))
            // A record below the trust level the rules need is on the timeline, not in the verdict: no payment, date,
            // refund or product of it (docs/security.md, "Trust levels").
            case .apple(let a) where event.unproven == nil: apple.append((event, a))
            case .apple: break
            case .client: break
            }
        }
        (self.requests, self.apple) = (requests, apple)
        // One request logged on several lines is one credit (or revoke): listed once, at its first line (found by a support
        // user test: a request logged twice read as two credits).
        func once(_ list: [(TraceEvent, TraceRequest)]) -> [TraceCredit] {
            var seen = Set<String>()
            return list.filter { seen.insert($0.1.requestId).inserted }.map(Self.credit)
        }
        credits = once(requests.filter(\.1.creditsTransaction))
        revokes = once(requests.filter { $0.1.event == "revoke" && [.posted, .postedOriginal].contains($0.1.relation) })
        let listings = apple.compactMap { e, a in a.listing.map { (e, $0) } }
        (refund, reversed) = Self.refund(listings)
        appleWord = Self.appleWord(listings)
    }

    private static func credit(_ e: (TraceEvent, TraceRequest)) -> TraceCredit {
        var credit = TraceCredit(userId: e.1.userId, requestId: e.1.requestId, timeMs: e.0.timeMs, location: e.0.location)
        (credit.quantity, credit.quantitySource) = (e.1.creditedQuantity, e.1.quantitySource)
        return credit
    }

    /// The credits held now, by time: not revoked (by a revoke of their user's, or naming nobody) since.
    var held: [TraceCredit] {
        credits.filter { c in
            !revokes.contains { r in (r.userId == nil || r.userId == c.userId) && (r.timeMs ?? .max) >= (c.timeMs ?? .min) }
        }
    }

    /// Apple's refund that stands: the first revocation on a listing whose signature did not fail, unless
    /// a REFUND_REVERSED listing was issued after the newest one (then that refund, reversed by that listing); a
    /// notification's type needs the notification's own signature (the record's: the worst of its parts).
    private static func refund(_ listings: [(TraceEvent, TraceListing)]) -> (stands: TraceRefund?, reversed: TraceRefund?) {
        let refunds = listings.filter { $0.1.cancellationMs != nil && !$0.1.evidence.itemSignature.failed }
        guard let newest = refunds.compactMap(\.1.cancellationMs).max(),
            let first = refunds.min(by: { $0.1.cancellationMs! < $1.1.cancellationMs! })
        else { return (nil, nil) }
        let refund = TraceRefund(atMs: first.1.cancellationMs!, location: first.0.location, revocationType: first.1.revocationType)
        let reversal = listings.first {
            $0.1.notificationType == "REFUND_REVERSED" && !$0.1.evidence.itemSignature.failed && ($0.1.issuedMs ?? .min) > newest
                && Self.recordCounts($0.0)
        }
        guard let reversal else { return (refund, nil) }
        return (nil, TraceRefund(atMs: refund.atMs, location: reversal.0.location, revocationType: refund.revocationType))
    }

    /// The record's own signature (a notification's: the worst of its parts) is at the level the rules need.
    private static func recordCounts(_ e: TraceEvent) -> Bool {
        guard case .apple(let a) = e.detail else { return false }
        return TrustLevel.of(source: e.source, signature: a.signature).counts
    }

    /// Rule 22 over the transaction's own listings: the first production record proving the payment
    /// unrefunded confirms it; if every proving record shows a refund, refunded; else why nothing proves it.
    private static func appleWord(_ listings: [(TraceEvent, TraceListing)]) -> TraceVerdict.AppleWord {
        let proving = listings.filter { $0.1.evidence.provesPayment() }
        if let paid = proving.first(where: { $0.1.cancellationMs == nil }) { return .confirmed(paid.0.location) }
        if let refunded = proving.first { return .refunded(refunded.0.location) }
        guard !listings.isEmpty else { return .notConfirmed("no Apple record lists it") }
        var seen = Set<String>()
        let reasons = listings.compactMap { e, l -> String? in
            let text = "\(e.location) (\(l.whyNoProof))"
            return seen.insert(text).inserted ? text : nil
        }
        let shown = reasons.prefix(3).joined(separator: ", ") + (reasons.count > 3 ? " and \(reasons.count - 3) more" : "")
        return .notConfirmed("no Apple record proves a production payment: \(shown)")
    }

}
