import Foundation

/// What a person does about a finding, as data: the same in table `finding_action`, `run --json`,
/// `trace --format json` and the workbook's finding sheets. Made from the finding's kind, reason, facts and
/// Apple's confirmation (`FindingAction.of`), then joined with its lifecycle (`joined(with:)`): an acknowledged
/// or resolved finding's action is `none` and says who closed it, when and with what note.
public struct FindingAction: Hashable, Sendable {
    public var code: FindingActionCode
    /// The account to act on; nil when the records do not single one out (`because` says why).
    public var userId: String?
    public var productId: String?
    /// How many units to credit or credits to take back; nil when not known.
    public var quantity: Int64?
    /// Apple's price of the transaction (a verified signed transaction's `price`), milliunits of `currency`; nil
    /// when no verified record gives it. Filled by the store from the ledger's records.
    public var amountMilliunits: Int64?
    public var currency: String?
    public var transactionId: String
    /// The server requests whose credits it concerns, in log order: the credits to take back (a duplicate, a sandbox
    /// credit), the credits without proof, the request to verify again; empty for the others.
    public var requestIds: [String] = []
    /// Why, in one sentence (for people).
    public var because: String
    /// `open`, `acknowledged` (`iap-audit ack`) or `resolved`.
    public var status: String = "open"
    /// The code the finding called for before it was acknowledged or resolved.
    public var openCode: FindingActionCode? = nil
    /// The note of the acknowledgement, who made it and when (ms since 1970 UTC).
    public var note: String? = nil
    public var by: String? = nil
    public var atMs: Int64? = nil

    public init(
        code: FindingActionCode, userId: String? = nil, productId: String? = nil, quantity: Int64? = nil, transactionId: String,
        because: String
    ) {
        (self.code, self.userId, self.productId, self.quantity, self.transactionId, self.because) =
            (code, userId, productId, quantity, transactionId, because)
    }

    /// The action a finding calls for (docs/semantics.md; its reason's declared `action` unless Apple's
    /// confirmation, rule 22, or the facts decide otherwise).
    public static func of(_ f: Finding) -> FindingAction {
        var action = decided(f)
        let x = f.facts
        switch f.kind {
        case .duplicateCredit where f.reason == FindingReason.duplicateCreditManualAndAutomatic.name:
            action.requestIds = x.objects(.grants).map { $0["request_id"]?.text ?? "?" }
        case .duplicateCredit: action.requestIds = extraCredits(f).map { $0["request_id"]?.text ?? "?" }
        case .invalidCredit: action.requestIds = x.objects(.unprovenGrants).compactMap { $0["request_id"]?.text }
        case .verificationBacklog, .pendingVerification: action.requestIds = x.text(.oldestRequestId).map { [$0] } ?? []
        default: action.requestIds = x.texts(.requestIds)
        }
        return action
    }

    /// The action's code, user, quantity and words.
    private static func decided(_ f: Finding) -> FindingAction {
        let x = f.facts
        let one = f.userIds.count == 1 ? f.userIds[0] : nil
        func make(_ code: FindingActionCode, user: String? = one, quantity: Int64? = nil, _ because: String) -> FindingAction {
            FindingAction(
                code: code, userId: user, productId: f.productId, quantity: quantity, transactionId: f.transactionId, because: because)
        }
        switch f.kind {
        case .droppedOrder: return dropped(f) { make($0, user: $1, quantity: $2, $3) }
        case .duplicateCredit where f.reason == FindingReason.duplicateCreditManualAndAutomatic.name:
            return manualAndAutomatic(f) { make($0, user: $1, quantity: $2, $3) }
        case .duplicateCredit: return duplicate(f, make: { make(.revoke, user: $0, quantity: $1, $2) })
        case .sandboxLeak:
            return make(.revoke, quantity: Int64(x.texts(.requestIds).count), "credited on a sandbox answer, where no money is paid")
        case .refundStillGranted:
            let holders = x.optionalTexts(.holders)
            let user = holders.count == 1 ? holders[0] : nil
            return make(
                .revoke, user: user, quantity: Int64(holders.count),
                "Apple refunded it at \(x.integer(.cancelledMs).map(Timestamp.iso) ?? "?") and the credit is still held")
        case .invalidCredit:
            if let record = x.text(.appleConfirmsAt) {
                return make(
                    .noAction,
                    "Apple confirms the payment (\(record)), so the credit stands; it was granted without proof: check the server's "
                        + "verification, then ack the finding")
            }
            return make(
                .askApple,
                "granted without proof (\(f.reason)): ask Apple (Get Transaction Info); take the credit back if Apple does not list it")
        case .verificationBacklog:
            return make(
                .askApple, user: nil,
                "retry the verification: request \(x.text(.oldestRequestId) ?? "?") has waited since "
                    + "\(x.integer(.oldestRequestMs).map(Timestamp.iso) ?? "?"), past the grace")
        case .pendingVerification: return make(.noAction, user: nil, "wait: Apple has not settled it yet, inside the grace")
        case .pendingEvidence: return make(.noAction, user: nil, "wait: the next delivery may clear it (\(f.detail))")
        case .sandboxRefused: return make(.noAction, user: nil, "a sandbox purchase, correctly not credited: no money was paid")
        case .sandboxAllowlisted: return make(.noAction, user: nil, "credited to an allowlisted tester on a sandbox answer")
        case .regranted: return make(.noAction, user: nil, "credited again where that is right (a restore)")
        case .idReissued: return make(.noAction, user: nil, "one purchase under several ids: one billing event")
        case .outsideWindow: return make(.noAction, user: nil, "not judged by these logs: \(f.detail)")
        case .refundSuperseded: return make(.noAction, user: nil, "the refund is superseded by the holder's later purchase")
        }
    }

    /// A duplicate credit: keep one credit (the first of the user whose app reported the purchase, else the first in the
    /// logs) and take back the others; the user is named when every credit to take back is theirs.
    private static func duplicate(
        _ f: Finding, make: (String?, Int64, String) -> FindingAction
    ) -> FindingAction {
        let grants = f.facts.objects(.grants)
        let reporters = f.facts.texts(.reportedBy)
        let user = { (g: FindingValue) in g["user_id"]?.text }
        let shown = { (g: FindingValue) in "\(g["request_id"]?.text ?? "?") (\(user(g) ?? "no user"))" }
        let (kept, payer) = keptCredit(f)
        let extra = extraCredits(f)
        let owners = Set(extra.map { user($0).map(ExactText.init) })
        let unpaid =
            payer == nil && !reporters.isEmpty
            ? "; but the client report's user \(reporters.joined(separator: ", ")) was credited none of them: the payment may be "
                + "theirs, so check the ticket's account first" : ""
        guard let keptGrant = grants.indices.contains(kept) ? grants[kept] : nil else {
            return make(nil, 0, "credited more than once for one payment: take back all but one credit")
        }
        return make(
            owners.count == 1 ? owners.first!?.text : nil, Int64(extra.count),
            "credited \(grants.count) times for one payment: keep \(shown(keptGrant))\(payer == nil ? "" : ", the user of the client report"); "
                + "take back \(extra.map(shown).joined(separator: ", "))\(unpaid)")
    }

    /// Credited by hand and by the server (rule 25): take one credit back, from the account credited twice when there is one.
    private static func manualAndAutomatic(
        _ f: Finding, _ make: (FindingActionCode, String?, Int64?, String) -> FindingAction
    ) -> FindingAction {
        let grants = f.facts.objects(.grants).map { "request \($0["request_id"]?.text ?? "?") (\($0["user_id"]?.text ?? "no user"))" }
        let manual = f.facts.objects(.manualCredits).map {
            "by hand by \($0["by"]?.text ?? "?") on \($0["at_ms"]?.integer.map(Timestamp.iso) ?? "?") (manual action #\($0["action_id"]?.text ?? "?"))"
        }
        let one = f.userIds.count == 1 ? f.userIds[0] : nil
        return make(
            .revoke, one, 1,
            "credited twice for one payment: \((manual + grants).joined(separator: " and ")); take one credit back, then record it "
                + "(iap-audit resolve \(f.transactionId) --revoked)")
    }

    /// The credit a duplicate keeps (its index in `grants`): the first of the user whose app reported the purchase
    /// (`payer`), else the first in the logs.
    private static func keptCredit(_ f: Finding) -> (kept: Int, payer: Int?) {
        let reporters = f.facts.texts(.reportedBy)
        let payer = f.facts.objects(.grants).firstIndex { g in
            g["user_id"]?.text.map { u in reporters.contains { $0.utf8.elementsEqual(u.utf8) } } ?? false
        }
        return (payer ?? 0, payer)
    }

    /// The credits a duplicate takes back: every one but the kept one, in log order.
    private static func extraCredits(_ f: Finding) -> [FindingValue] {
        let kept = keptCredit(f).kept
        return f.facts.objects(.grants).enumerated().filter { $0.offset != kept }.map(\.element)
    }

    /// Rule 22 decides a dropped order's action: credit what Apple confirms, nothing for a refund, ask Apple for a claim.
    private static func dropped(
        _ f: Finding, _ make: (FindingActionCode, String?, Int64?, String) -> FindingAction
    ) -> FindingAction {
        let x = f.facts
        let one = f.userIds.count == 1 ? f.userIds[0] : nil
        switch f.reason {
        case "under_credited":
            let (paid, credited) = (x.integer(.quantityPaid) ?? 0, x.integer(.quantityCredited) ?? 0)
            return make(.credit, one, FindingSentence.missing(paid, credited), "paid \(paid), credited \(credited): credit the rest")
        case "revoked_while_paid":
            return make(.credit, one, 1, "the credit was revoked while Apple shows it paid and not refunded: credit it again")
        default: break
        }
        switch f.appleConfirmation {
        case .confirmed?:
            if f.userIds.isEmpty {
                return make(.askCustomer, nil, 1, "Apple confirms the payment, and no log names its account: ask the customer")
            }
            let once = f.userIds.count > 1 ? " once, to the account of the ticket's customer (one payment listed by several accounts)" : ""
            return make(.credit, one, 1, "Apple confirms the payment and nobody was credited: credit it\(once)")
        case .refunded?: return make(.noAction, one, nil, "Apple refunded it; it was never credited")
        case .notFound?:
            return make(
                .refuse, one, nil,
                "Apple's App Store Server API, asked by the id, has no such purchase in production (\(x.text(.appleNotFound) ?? "?")): "
                    + "refuse the claim and tell the customer; if they insist, ask for the Apple receipt email's order id")
        default:
            let why: String
            switch f.reason {
            case "never_sent": why = "only the client reports the purchase; it never reached the server"
            case "stale_receipt": why = "the receipt Apple verified was created before the purchase"
            case "not_in_receipt": why = "the receipt Apple verified does not list it"
            case "verify_failed": why = "the verification failed (status \(x.integer(.status) ?? 0))"
            default: why = "no Apple record proves the payment"
            }
            return make(.askApple, one, nil, "\(why): ask Apple (Get Transaction Info) before crediting")
        }
    }

    /// The action of `f` priced with Apple's price of its transaction (`AuditSnapshot.prices`; nil: not known).
    public static func of(_ f: Finding, price: Money?) -> FindingAction {
        var a = of(f)
        (a.amountMilliunits, a.currency) = (price?.milliunits, price?.currency)
        return a
    }

    /// The action once the finding's lifecycle is known: acknowledged or resolved, it is `none`, with the note, who
    /// and when; `openCode` keeps what it called for and `because` why. Joining again (a second `ack`) replaces them.
    public func joined(with state: FindingState?) -> FindingAction {
        guard let state else { return self }
        return joined(
            status: state.status, note: state.note, by: state.acknowledgedBy,
            atMs: state.status.isClosed ? state.resolvedAtMs : state.acknowledgedAtMs)
    }

    /// `joined(with:)` from the parts of a state a run's listing holds (`RunChanges.Listing`).
    public func joined(status: FindingStatus, note: String?, by: String?, atMs: Int64?) -> FindingAction {
        guard status != .open else { return self }
        var a = self
        (a.status, a.openCode, a.code) = (status.rawValue, openCode ?? code, .noAction)
        (a.note, a.by, a.atMs) = (note, by, atMs)
        return a
    }

    /// The action as JSON values (`run --json`, `trace --format json`): every key present, `NSNull` when unknown.
    public var jsonObject: [String: Any] {
        let values: [String: Any?] = [
            "code": code.rawValue, "user_id": userId, "product_id": productId, "quantity": quantity, "amount_milliunits": amountMilliunits,
            "currency": currency, "transaction_id": transactionId, "request_ids": requestIds, "because": because, "status": status,
            "open_code": openCode?.rawValue,
            "note": note, "by": by, "at": atMs.map(Timestamp.iso),
        ]
        return values.mapValues { $0 ?? NSNull() }
    }
}
