/// What a support engineer answers about one transaction (`TraceJudge` decides it): whether Apple
/// confirms the payment and by which record, who holds a credit, whether it was refunded, and what to do
/// next, in words.
package struct TraceVerdict: Sendable {
    package var apple: AppleWord
    /// Requests that credited it (`TraceRequest.credits`), by time.
    package var credits: [TraceCredit] = []
    /// Revokes that took it back, by time.
    package var revokes: [TraceCredit] = []
    /// The credits the verdict says delivered (no problem finding decides, no refund stands): those still held, by time;
    /// empty otherwise. The JSON's `verdict.delivered`.
    package var delivered: [TraceCredit] = []
    /// Apple's refund that stands (not reversed later), if any.
    package var refund: TraceRefund?
    /// Apple's refund taken back (a REFUND_REVERSED signed after it): `atMs` the refund's date, `location` the reversal's
    /// record (found by a support user test: the verdict did not say the refund of the timeline was reversed).
    package var refundReversed: TraceRefund?
    package var action: TraceAction
    /// The next action in words, e.g. `credit manually: Apple confirms payment (verify.jsonl:812), no credit found`.
    package var nextAction: String
    /// The action as data (the JSON's `action`): the deciding finding's, as table `finding_action` holds it (the same
    /// code, user, quantity and lifecycle); else the records', its code from `action`.
    package var findingAction: FindingAction

    /// `findingAction` nil: the action's code and words as data, of no transaction.
    package init(apple: AppleWord, action: TraceAction, nextAction: String, findingAction: FindingAction? = nil) {
        (self.apple, self.action, self.nextAction) = (apple, action, nextAction)
        self.findingAction = findingAction ?? FindingAction(code: action.code, transactionId: "", because: nextAction)
    }

    /// The verdict cannot be trusted until the run goes again over the same inputs: the action says so (`fix_input`).
    /// Nothing is said delivered then either.
    package mutating func rerunFirst() {
        (findingAction.code, findingAction.because, delivered) = (.fixInput, nextAction, [])
    }

    /// Whether Apple confirms the payment (semantics.md rule 22, from the listings' `PaymentEvidence`).
    package enum AppleWord: Sendable, Equatable {
        /// A production record that proves payment lists it unrefunded: the first such record.
        case confirmed(SourceLocation)
        /// Every record that proves the payment shows it refunded: the first such record.
        case refunded(SourceLocation)
        /// No record proves the payment; why, in words.
        case notConfirmed(String)

        /// `confirmed`, `refunded` or `not_confirmed`.
        package var code: String {
            switch self {
            case .confirmed: return "confirmed"
            case .refunded: return "refunded"
            case .notConfirmed: return "not_confirmed"
            }
        }

        /// The record that proves the payment, if any.
        package var record: SourceLocation? {
            switch self {
            case .confirmed(let l), .refunded(let l): return l
            case .notConfirmed: return nil
            }
        }
    }
}

/// A credit (or a revoke) of the transaction: who, by which request, when, where logged.
package struct TraceCredit: Sendable, Equatable {
    package var userId: String?
    package var requestId: String
    package var timeMs: Int64?
    package var location: SourceLocation
    /// Units a credit gave (`TraceRequest.creditedQuantity`) and where that comes from (`credited_quantity`, `apple`,
    /// `client`); nil when unknown, and for a revoke.
    package var quantity: Int?
    package var quantitySource: String?

    package init(userId: String?, requestId: String, timeMs: Int64?, location: SourceLocation) {
        (self.userId, self.requestId, self.timeMs, self.location) = (userId, requestId, timeMs, location)
    }

    /// The quantity in words: `quantity 2 as the server logged it`, `… as Apple lists it`, `… as the client reported it`,
    /// `quantity unknown`.
    package var quantityWords: String { Self.quantityWords(quantity, source: quantitySource) }

    /// `quantityWords` of a quantity and its source.
    package static func quantityWords(_ quantity: Int?, source: String?) -> String {
        guard let quantity else { return "quantity unknown" }
        switch source {
        case "credited_quantity": return "quantity \(quantity) as the server logged it"
        case "apple": return "quantity \(quantity) as Apple lists it"
        default: return "quantity \(quantity) as the client reported it"
        }
    }
}

/// Apple's refund (revocation) of the transaction: when, and the record that says so.
package struct TraceRefund: Sendable, Equatable {
    package var atMs: Int64
    package var location: SourceLocation
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`…, when Apple named it.
    package var revocationType: String?

    package init(atMs: Int64, location: SourceLocation, revocationType: String?) {
        (self.atMs, self.location, self.revocationType) = (atMs, location, revocationType)
    }
}

/// The next action, as a stable code (the JSON's `next_action.code`).
package enum TraceAction: String, Sendable, CaseIterable {
    /// The action code it comes under (`FindingActionCode`).
    package var code: FindingActionCode {
        switch self {
        case .creditManually, .creditRest: return .credit
        case .requery, .retryVerification, .reverify: return .askApple
        case .wait, .noAction, .notJudged: return .noAction
        case .revoke: return .revoke
        case .fixInput: return .fixInput
        case .tellCustomer, .checkId: return .askCustomer
        case .refuse: return .refuse
        }
    }

    /// Credit the customer by hand: Apple confirms a payment nobody was credited for.
    case creditManually = "credit_manually"
    /// Credit what is missing: more units paid than credited, or a paid purchase revoked.
    case creditRest = "credit_rest"
    /// Ask Apple (Get Transaction Info) before deciding: the logs cannot show the payment.
    case requery = "requery"
    /// Retry the verification: Apple's answer is overdue or was a retryable error.
    case retryVerification = "retry_verification"
    /// Nothing yet: Apple has not answered, inside the grace.
    case wait = "wait"
    /// Take the credit back: refunded, sandbox, or credited twice.
    case revoke = "revoke"
    /// Check the credit with Apple and take it back if Apple does not list it.
    case reverify = "reverify"
    /// Nothing to do.
    case noAction = "no_action"
    /// These logs cannot judge it (a purchase outside the audit window): look at the logs of its time.
    case notJudged = "not_judged"
    /// The id is only in lines the run rejected: fix them and run again.
    case fixInput = "fix_input"
    /// Apple does not know the order id (Look Up Order ID status 1): tell the customer.
    case tellCustomer = "tell_customer"
    /// Refuse the claim: Apple, asked by the id, has no such purchase in production (rule 25).
    case refuse = "refuse"
    /// No record of the ledger holds the id: check it (a near match?), else give the run what would hold it.
    case checkId = "check_id"
}
