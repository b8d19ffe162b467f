import IAPAuditModel

/// The next action on a traced transaction, in words: from its first problem finding (in the finding
/// table's kind order), else from an info finding that says what is going on (pending, sandbox, outside
/// the window), else from its records (credited, refunded, nothing to do).
enum TraceActions {
    static func next(_ trace: TransactionTrace, _ facts: TraceFacts) -> (TraceAction, String) {
        if let f = deciding(trace) {
            let action = acknowledged(f.kind.isInfo ? info(f, facts) : problem(f, trace, facts), trace.state(of: f))
            return TraceManualActions.judged(action, f, trace)
        }
        if let double = TraceManualActions.doubleCredit(trace, facts) { return double }
        let findings = trace.findings.sorted { $0.kind < $1.kind }
        let superseded = findings.first { $0.kind == .refundSuperseded }.flatMap {
            FindingSentence.laterPurchases($0.facts, productId: $0.productId)
        }
        return fromRecords(facts, superseded: superseded)
    }

    /// The finding that decides the action: the first problem (kind order), else an info finding that says what is
    /// going on (pending, sandbox, outside the window); nil when the records decide.
    static func deciding(_ trace: TransactionTrace) -> Finding? {
        let findings = trace.findings.sorted { $0.kind < $1.kind }
        return findings.first { !$0.kind.isInfo }
            ?? findings.first {
                [.sandboxAllowlisted, .sandboxRefused, .pendingVerification, .pendingEvidence, .outsideWindow].contains($0.kind)
            }
    }

    /// An action decided by a finding `iap-audit ack` marked known is none: someone has it in hand. The words say who,
    /// when, the note, and what it called for.
    private static func acknowledged(_ action: (TraceAction, String), _ state: FindingState?) -> (TraceAction, String) {
        guard let state, state.status == .acknowledged else { return action }
        let day = state.acknowledgedAtMs.map { " on " + Timestamp.day($0) } ?? ""
        let by = state.acknowledgedBy.map { " by \($0)" } ?? ""
        return (.noAction, "no action: acknowledged\(day)\(by)" + (state.note.map { ": \($0)" } ?? "") + "; it called for: \(action.1)")
    }

    private static func users(_ ids: [String]) -> String { ids.isEmpty ? "nobody" : ids.joined(separator: ", ") }

    private static func problem(_ f: Finding, _ trace: TransactionTrace, _ facts: TraceFacts) -> (TraceAction, String) {
        let t = trace.transactionId
        switch f.kind {
        case .droppedOrder:
            return dropped(f, facts)
        case .duplicateCredit:
            return (.revoke, TraceDuplicateAction.text(f, trace))
        case .sandboxLeak:
            return (.revoke, "revoke from \(users(f.userIds)): \(f.detail)")
        case .refundStillGranted:
            let refunded = facts.refund.map { "refunded on \(Timestamp.day($0.atMs)) (\($0.location))" } ?? "refunded"
            return (.revoke, "revoke: \(refunded) but still granted to \(users(f.userIds))")
        case .invalidCredit:
            if case .confirmed(let record) = facts.appleWord {
                // Rule 13 judges the grant by its own request's answer: Apple's later word does not clear the
                // finding, but the credit is paid for.
                return (
                    .noAction,
                    "no action on the credit: Apple confirms the payment (\(record)), so the credit to \(users(f.userIds)) stands; "
                        + "the finding stays: it was granted without proof (\(invalidReason(f, facts))): check the server's "
                        + "verification, then ack the finding"
                )
            }
            return (
                .reverify,
                "re-verify with Apple Get Transaction Info for \(t): granted to \(users(f.userIds)) without proof "
                    + "(\(invalidReason(f, facts))); take the credit back if Apple does not list it"
            )
        case .verificationBacklog:
            return (.retryVerification, "retry verification: " + unresolved(f, facts, overdue: true))
        default:
            return fromRecords(facts, superseded: nil)
        }
    }

    private static func dropped(_ f: Finding, _ facts: TraceFacts) -> (TraceAction, String) {
        let t = facts.transactionId
        switch f.reason {
        case "revoked_while_paid":
            let revoke = facts.revokes.last.map { r in (r.timeMs.map { " on " + Timestamp.day($0) } ?? "") + " (\(r.location))" } ?? ""
            return (
                .creditRest,
                "credit \(users(f.userIds)) again: the credit was revoked\(revoke) while Apple shows it paid (\(proof(f, facts))) and not refunded"
            )
        case "under_credited":
            // Rule 20 compares the largest single credit: credits that add up to the quantity paid would be the duplicate's
            // business, and crediting the rest again would give it twice (found by a support user test).
            // One credit per request (`TraceFacts.credits`).
            let several =
                facts.credits.count > 1
                ? "; it was credited by \(facts.credits.count) requests (the duplicate_credit finding): if their quantities add "
                    + "up to what was paid, nothing is missing, so check them before crediting more" : ""
            return (.creditRest, "credit the rest to \(users(f.userIds)): \(f.detail)\(several)")
        case "stale_receipt" where facts.appleWord.code != "confirmed":
            return (.requery, "re-query Apple Get Transaction Info for \(t): the receipt was stale (created before the purchase)")
        default:
            break
        }
        // The trace's own word first: when Apple confirms the payment, re-querying Apple asks what it answered.
        switch facts.appleWord.code == "confirmed" ? .confirmed : f.appleConfirmation {
        case .confirmed?:
            // One payment: credited once, to one account, however many accounts' receipts listed it (found by a support user
            // test: "credit manually to u-p, u-q" would have paid it twice).
            let to =
                f.userIds.count > 1
                ? " to one of \(users(f.userIds)) (once: one payment, listed by the receipts of several accounts; the account "
                    + "of the ticket's customer)" : f.userIds.isEmpty ? "" : " to \(users(f.userIds))"
            let unnamed = f.userIds.isEmpty ? "; no log names its user" : ""
            return (.creditManually, "credit manually\(to): Apple confirms payment (\(proof(f, facts))), no credit found\(unnamed)")
        case .refunded?:
            let day = facts.refund.map { Timestamp.day($0.atMs) } ?? "?"
            return (.noAction, "no action: refunded on \(day) (\(facts.refund?.location.description ?? proof(f, facts))), never credited")
        case .notFound?:
            return (
                .refuse,
                "refuse the claim: asked by the id, Apple has no such purchase in production (\(f.facts.text(.appleNotFound) ?? "?")); "
                    + "tell the customer, and ask for the order id of Apple's receipt email if they insist"
            )
        default:
            return (.requery, "re-query Apple Get Transaction Info for \(t): \(claimed(f))")
        }
    }

    /// The record that proves the payment: the transaction's own, else the finding's last Apple evidence.
    private static func proof(_ f: Finding, _ facts: TraceFacts) -> String {
        if let record = facts.appleWord.record { return record.description }
        let apple = Set(facts.apple.map(\.0.location))
        return (f.evidence.last { apple.contains($0) } ?? f.evidence.last)?.description ?? "?"
    }

    /// Why only the client says it was paid (a claimed dropped order).
    private static func claimed(_ f: Finding) -> String {
        switch f.reason {
        case "never_sent": return "only the client reports the purchase; it never reached the server"
        case "no_verify_response": return "Apple never answered its verification, and no Apple record proves the payment"
        case "verify_failed":
            let status = Int(f.facts.integer(.status) ?? 0)
            return
                "the verification failed (last status \(status): \(VerifyStatus.meaning(status))), and no Apple record proves the payment"
        case "not_in_receipt": return "the receipt Apple verified does not list it"
        default: return "only the client says it was paid (\(f.reason))"
        }
    }

    private static func invalidReason(_ f: Finding, _ facts: TraceFacts) -> String {
        switch f.reason {
        case "signature_invalid": return "the signature of the record backing it failed"
        case "bundle_mismatch": return "the receipt is another app's"
        case "not_in_receipt": return "Apple's answer does not list it"
        case "no_verify_response": return "Apple never answered"
        case "nonzero_status":
            let failed = facts.apple.last { $0.1.requestId != nil && $0.1.status != 0 }
            return failed.map { "Apple answered status \($0.1.status): \(VerifyStatus.meaning($0.1.status))" }
                ?? "Apple's answer was an error"
        default: return f.reason
        }
    }

    /// A request Apple has not settled: since when, and Apple's last word.
    private static func unresolved(_ f: Finding, _ facts: TraceFacts, overdue: Bool) -> String {
        let since = f.facts.integer(.oldestRequestMs).map { Timestamp.iso($0) } ?? "?"
        let request = f.facts.text(.oldestRequestId).map { " (request \($0))" } ?? ""
        if f.reason == "retryable_status", let status = f.facts.integer(.status) {
            return "Apple answered a retryable status \(status): \(VerifyStatus.meaning(Int(status)))\(request); pending since \(since)"
        }
        return "Apple has not answered yet\(request); pending since \(since)\(overdue ? ", past the grace" : "")"
    }

    private static func info(_ f: Finding, _ facts: TraceFacts) -> (TraceAction, String) {
        switch f.kind {
        case .pendingVerification: return (.wait, "wait: " + unresolved(f, facts, overdue: false))
        case .pendingEvidence: return (.wait, "wait: " + f.detail)
        case .sandboxRefused: return (.noAction, "no action: a sandbox purchase, correctly not credited (no money was paid)")
        case .sandboxAllowlisted:
            return (.noAction, "no action: credited to \(users(f.userIds)), an allowlisted tester, on a Sandbox answer (no money was paid)")
        default: return (.notJudged, "not judged by these logs: \(f.detail)")
        }
    }

    /// - Parameter superseded: what supersedes a refund (rule 23: the user holds a later purchase), in words.
    private static func fromRecords(_ facts: TraceFacts, superseded: String?) -> (TraceAction, String) {
        let confirmed = facts.appleWord.record.map { ", Apple confirms payment (\($0))" } ?? ""
        if let refund = facts.refund {
            let revoke = facts.revokes.last.map { r in
                ", credit revoked\(r.timeMs.map { " on " + Timestamp.day($0) } ?? "") (\(r.location))"
            }
            return (
                .noAction,
                "no action: refunded on \(Timestamp.day(refund.atMs)) (\(refund.location))\(revoke ?? "")"
                    + (superseded.map { "; \($0)" } ?? "")
            )
        }
        let held = facts.held
        if !held.isEmpty {
            // Delivered: each credit held, when, to whom, by which request, how many (found by support: "no action" read as
            // nothing done for a customer disputing a delivered order).
            let credits = held.map { c in
                "credited on \(c.timeMs.map(Timestamp.iso) ?? "an unknown date") to \(c.userId ?? "no named user") "
                    + "(request \(c.requestId), \(c.quantityWords))"
            }
            return (.noAction, "delivered: " + credits.joined(separator: "; ") + (confirmed.isEmpty ? "" : ";" + confirmed.dropFirst()))
        }
        if let last = facts.revokes.last, !facts.credits.isEmpty {
            let users = ExactText.distinctSorted(facts.credits.compactMap(\.userId))
            let day = last.timeMs.map { " on " + Timestamp.day($0) } ?? ""
            return (.noAction, "no action: credited to \(Self.users(users)), revoked\(day) (\(last.location))")
        }
        if case .confirmed(let record) = facts.appleWord {
            return (.noAction, "no action: Apple lists the payment (\(record)) and no finding flags it")
        }
        let listings = facts.apple.compactMap(\.1.listing)
        if !listings.isEmpty && listings.allSatisfy({ $0.evidence.familyShared }) {
            return (.noAction, "no action: a Family Sharing copy (FAMILY_SHARED) of the organizer's purchase, no payment of its own")
        }
        return (.noAction, "no action: no credit, and no Apple record proves a payment")
    }
}
