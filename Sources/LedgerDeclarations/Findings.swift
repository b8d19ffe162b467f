/// The finding kinds, their reasons and the facts a finding carries, each declared once: from them
/// `generate-ledger-code` writes `FindingKind`, `FindingReason` and `FindingField` (IAPAuditModel), whose
/// values the rules fill, the ledger stores (`finding.facts`, `finding_action`), and `--json`, trace and the
/// workbook show. The rules are docs/semantics.md's. See docs/architecture.md, "Add a finding field".
public struct FindingKindDeclaration: Sendable {
    /// The kind as the ledger names it, e.g. `dropped_order`.
    public var name: String
    /// `error` (money lost or given away), `warning` (a credit without proof, a wait) or `info` (an observation).
    public var severity: String
    /// A loss a close values (every problem but the verification backlog).
    public var isLoss: Bool
    /// One line: what it means.
    public var doc: String
    public var reasons: [FindingReasonDeclaration]

    public init(_ name: String, _ severity: String, loss: Bool = false, _ doc: String, _ reasons: [FindingReasonDeclaration]) {
        (self.name, self.severity, self.isLoss, self.doc, self.reasons) = (name, severity, loss, doc, reasons)
    }
}

/// One reason of a kind: the rule that makes it, what it means, the facts it carries, and what to do about it.
public struct FindingReasonDeclaration: Sendable {
    /// The reason as the ledger names it, e.g. `never_sent`.
    public var name: String
    /// The docs/semantics.md rule that makes it.
    public var rule: Int
    public var doc: String
    /// The facts (`findingFieldDeclarations` names) a finding of this reason carries, besides the columns
    /// every finding has.
    public var fields: [String]
    /// The action (`FindingActionCode`) when Apple's confirmation does not decide it (rule 22 decides a dropped
    /// order's: `credit` when confirmed, `none` when refunded, `ask_apple` when claimed).
    public var action: String

    public init(_ name: String, rule: Int, _ doc: String, fields: [String], action: String) {
        (self.name, self.rule, self.doc, self.fields, self.action) = (name, rule, doc, fields, action)
    }
}

extension [FindingReasonDeclaration] {
    /// Reasons that share a rule, facts and action: one a `(name, doc)`.
    static func alike(rule: Int, fields: [String], action: String, _ reasons: [(String, String)]) -> Self {
        reasons.map { FindingReasonDeclaration($0.0, rule: rule, $0.1, fields: fields, action: action) }
    }
}

/// One fact a finding may carry: its name in the ledger and the JSON (snake_case), its value's shape, and
/// what it means. Times are milliseconds since 1970 UTC (`_ms`), amounts milliunits of `currency`.
public struct FindingFieldDeclaration: Sendable {
    public enum Shape: String, Sendable {
        /// A text, e.g. a request id.
        case text
        /// Texts, in the order the rule lists them.
        case texts
        /// Texts some of which may be null (a grant logged without a user).
        case optionalTexts
        /// A whole number (a count, a status, a quantity, a time in ms).
        case integer
        /// Objects with the keys of `keys`, in that order.
        case objects
    }

    public var name: String
    public var shape: Shape
    /// `objects`: each object's keys (a key ending in `_ms` holds an integer, any other a text or null).
    public var keys: [String]
    public var doc: String

    public init(_ name: String, _ shape: Shape, keys: [String] = [], _ doc: String) {
        (self.name, self.shape, self.keys, self.doc) = (name, shape, keys, doc)
    }
}

/// Every fact a finding may carry, one a line: `name shape: doc`, the shape a `FindingFieldDeclaration.Shape` or
/// `objects(key, …)` with its keys; a line that starts with more spaces goes on with the doc above it.
public let findingFieldDeclarations = findingFields(
    """
    request_ids texts: The server requests the rule judged, in log order.
    proof_request_id text: The request whose answer Apple verified (the receipt that shows, or lacks, it).
    status integer: Apple's status (verifyReceipt) in the answer the reason rests on.
    reported_ms integer: When the client first reported the purchase.
    receipt_created_ms integer: When the newest receipt Apple verified was created (rule 21).
    grants objects(request_id, user_id, transaction_id): Each credit of the purchase, in log order: its request, user (null: none logged)
        and id (when several ids were credited).
    transaction_ids texts: Every transaction id of the one purchase.
    granted_transaction_ids texts: The purchase's ids that were credited.
    reported_by texts: The users whose app reported the purchase.
    apple_record_count integer: How many of Apple's records list it.
    apple_sources texts: Their sources, with the signature's state (`signed_transaction verified`).
    environment_unlabelled integer: 1 when one of them names no environment (read as production).
    cancelled_ms integer: Apple's earliest cancellation (refund) date.
    cancellation_reason text: Apple's `cancellation_reason`.
    revocation_type text: Apple's `revocationType` (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`).
    revocation_percentage integer: Apple's `revocationPercentage`, thousandths of a percent refunded.
    holders optionalTexts: Who still holds the credit (null: a grant logged without a user).
    later_purchases objects(user_id, transaction_id, product_id, purchase_ms): Rule 23: each holder's later purchase of the product, which
        supersedes the refunded one.
    attributed_to texts: Rule 9: the users granted the subscription a renewal no request links to.
    attributed_subscription text: The subscription (original transaction id) they were granted.
    revoked_ms integer: When the server revoked it.
    last_granted_ms integer: When it was last granted before that.
    expires_ms integer: When the paid period ends (the Apple record signed last).
    quantity_paid integer: The quantity Apple lists as paid.
    quantity_credited integer: The quantity credited.
    quantity_source text: Where the credited quantity comes from: `credited_quantity` (server log) or `quantity` (client).
    unproven_grants objects(request_id, reason): Each credit without proof: its request and why it proves nothing.
    unresolved_count integer: How many requests Apple has not settled.
    oldest_request_id text: The oldest of them.
    oldest_request_ms integer: When it was logged.
    as_of_ms integer: The run's as-of: what the age is measured against.
    apple_confirms_at text: The record (file:line) by which Apple confirms the payment of a credit without proof.
    judged text: What rule 17 would have judged: `purchase_reported`, `purchase_only_apple_lists`, `purchase_revoked_while_paid`,
        `purchase_under_credited`.
    dated_ms integer: The purchase's date as rule 17 dates it.
    window_bound text: The bound it falls outside: `to` (--to), `logs_end` (the newest log), `from` (--from), `logs_start`.
    window_bound_ms integer: That bound.
    manual_credits objects(action_id, by, at_ms, user_id, note): Rule 25: each credit a person recorded (`iap-audit resolve --credited`):
        its number in `manual_action`, who, when, the account and the note.
    apple_not_found text: Rule 25: the Apple answer (file:line) by which the App Store Server API does not know the id in production.
    would_be text: Rule 26: what a pending finding becomes once its feed passes the grace, as `kind/reason` (`dropped_order/never_sent`).
    pending_since_ms integer: Rule 26: when the grace runs from: the purchase (a refund's date, a grant without proof's `ts`).
    feed_end_ms integer: Rule 26: the newest record of the feed it waits for (the server log's newest `ts`, Apple's newest
        `received_at`).
    grace_ms integer: Rule 26: the run's grace (`--grace`), ms.
    """)

/// The fields of a table of `findingFieldDeclarations`' form.
private func findingFields(_ table: String) -> [FindingFieldDeclaration] {
    var fields: [FindingFieldDeclaration] = []
    for line in table.split(separator: "\n") {
        if line.hasPrefix(" ") {
            fields[fields.count - 1].doc += " " + line.drop { $0 == " " }
            continue
        }
        guard let colon = line.firstRange(of: ": "), let space = line.firstIndex(of: " ") else { fatalError("not a field: \(line)") }
        let shape = line[line.index(after: space)..<colon.lowerBound]
        let keys = shape.hasPrefix("objects(") ? shape.dropFirst(8).dropLast().split(separator: ", ").map(String.init) : []
        guard let kind = FindingFieldDeclaration.Shape(rawValue: keys.isEmpty ? String(shape) : "objects") else {
            fatalError("no shape \(shape)")
        }
        fields.append(FindingFieldDeclaration(String(line[..<space]), kind, keys: keys, String(line[colon.upperBound...])))
    }
    return fields
}

/// The facts of one purchase credited again (rules 10 and 18).
private let creditFacts = ["grants", "transaction_ids", "granted_transaction_ids"]
/// Apple's refund of a purchase (rules 12 and 23).
private let refundFacts = ["cancelled_ms", "cancellation_reason", "revocation_type", "revocation_percentage"]
/// A request Apple has not settled (rule 14).
private let unsettledFacts = ["unresolved_count", "oldest_request_id", "oldest_request_ms", "as_of_ms"]

/// A problem at the edge of the data (rule 26).
private let pendingFacts = ["would_be", "pending_since_ms", "feed_end_ms", "grace_ms"]

/// Rules 10 and 18: one payment credited more than once.
private let duplicateCreditReasons: [FindingReasonDeclaration] =
    [
        .init(
            "cross_account", rule: 10, "Credited to two or more users: a receipt or account-sharing replay.",
            fields: creditFacts + ["reported_by"], action: "revoke"),
        .init(
            "reissued_id_credited", rule: 18, "One user credited two ids of one subscription period or non-renewing purchase.",
            fields: creditFacts + ["reported_by"], action: "revoke"),
    ]
    + .alike(
        rule: 10, fields: creditFacts + ["reported_by"], action: "revoke",
        [
            ("restore_credited_as_purchase", "A consumable credited again by a restore request."),
            ("same_user", "A consumable (or a product of unknown type) credited twice to one user."),
        ])
    + [
        .init(
            "manual_and_automatic", rule: 25, "Credited by hand (`iap-audit resolve --credited`) and by the server.",
            fields: creditFacts + ["manual_credits"], action: "revoke")
    ]

/// Rule 14's two reasons, for the verification backlog and for a pending verification: no answer (`noAnswer`),
/// or a retryable status.
private func unsettled(_ noAnswer: String, action: String) -> [FindingReasonDeclaration] {
    [
        .init("no_verify_response", rule: 14, noAnswer, fields: unsettledFacts, action: action),
        .init("retryable_status", rule: 14, "Apple answered a retryable status.", fields: unsettledFacts + ["status"], action: action),
    ]
}

/// The kinds, problems first, in the finding table's order.
public let findingKindDeclarations: [FindingKindDeclaration] = [
    FindingKindDeclaration(
        "dropped_order", "error", loss: true, "The customer paid and nobody was credited.",
        [
            .init(
                "never_sent", rule: 8, "The client reported the purchase; no server request carried it.", fields: ["reported_ms"],
                action: "ask_apple"),
            .init(
                "not_credited", rule: 8, "Apple verified it and its receipt lists it; never granted.",
                fields: ["request_ids", "proof_request_id"], action: "ask_apple"),
            .init(
                "stale_receipt", rule: 21, "The receipt Apple verified was created before the purchase: it cannot list it.",
                fields: ["request_ids", "proof_request_id", "receipt_created_ms", "reported_ms"], action: "ask_apple"),
            .init(
                "not_in_receipt", rule: 8, "Apple verified the receipt (status 0) but it does not list the purchase.",
                fields: ["request_ids", "proof_request_id"], action: "ask_apple"),
            .init(
                "verify_failed", rule: 8, "Apple's last answer was an error status.",
                fields: ["request_ids", "proof_request_id", "status"],
                action: "ask_apple"),
            .init(
                "no_verify_response", rule: 8, "Apple never answered a request that carried it.", fields: ["request_ids"],
                action: "ask_apple"),
            .init(
                "in_receipt_never_credited", rule: 9, "Apple lists a production payment nobody reported or was granted.",
                fields: [
                    "apple_record_count", "apple_sources", "environment_unlabelled", "cancelled_ms", "attributed_to",
                    "attributed_subscription",
                ], action: "ask_apple"),
            .init(
                "revoked_while_paid", rule: 19, "The server took back a purchase Apple shows paid and not refunded.",
                fields: ["revoked_ms", "last_granted_ms", "expires_ms", "cancelled_ms"], action: "credit"),
            .init(
                "under_credited", rule: 20, "Apple's quantity is above the quantity credited.",
                fields: ["quantity_paid", "quantity_credited", "quantity_source"], action: "credit"),
        ]),
    FindingKindDeclaration("duplicate_credit", "error", loss: true, "One payment was credited more than once.", duplicateCreditReasons),
    FindingKindDeclaration(
        "sandbox_leak", "error", loss: true, "Credited on a sandbox answer, where no money is paid.",
        [
            .init("sandbox_credited", rule: 11, "Credited on a Sandbox answer.", fields: ["request_ids"], action: "revoke"),
            .init(
                "environment_conflict", rule: 24, "Credited on an answer whose environment signals are the sandbox's.",
                fields: ["request_ids"], action: "revoke"),
        ]),
    FindingKindDeclaration(
        "refund_still_granted", "error", loss: true, "Apple refunded it and the credit was never taken back.",
        [
            .init(
                "cancelled_not_revoked", rule: 12, "Apple shows a cancellation date; somebody still holds the credit.",
                fields: refundFacts + ["holders", "later_purchases"], action: "revoke")
        ]),
    FindingKindDeclaration(
        "invalid_credit", "warning", loss: true, "Credited without proof from Apple.",
        .alike(
            rule: 13, fields: ["unproven_grants", "apple_confirms_at"], action: "ask_apple",
            [
                ("signature_invalid", "The signature of the record backing the credit failed."),
                ("bundle_mismatch", "The receipt is another app's."), ("nonzero_status", "Apple's answer was an error status."),
                ("not_in_receipt", "Apple's answer does not list it."), ("no_verify_response", "Apple never answered."),
            ])),
    FindingKindDeclaration(
        "verification_backlog", "warning", "Apple has not settled a request past the grace.",
        unsettled("No answer from Apple.", action: "ask_apple")),
    FindingKindDeclaration(
        "sandbox_allowlisted", "info", "Credited on a sandbox answer to an allowlisted tester.",
        [.init("allowlisted_user", rule: 11, "The user is in the config's sandbox_allowlist.", fields: ["request_ids"], action: "none")]),
    FindingKindDeclaration(
        "sandbox_refused", "info", "A sandbox purchase, correctly not credited.",
        [
            .init(
                "sandbox_receipt", rule: 8, "Every answer was the sandbox's and nothing was granted.", fields: ["request_ids", "status"],
                action: "none"),
            .init(
                "environment_conflict", rule: 24, "Only records whose environment signals disagree list it; nothing was granted.",
                fields: ["request_ids", "apple_record_count"], action: "none"),
        ]),
    FindingKindDeclaration(
        "pending_verification", "info", "Apple has not settled a request yet, inside the grace.",
        unsettled("No answer from Apple yet.", action: "none")),
    FindingKindDeclaration(
        "pending_evidence", "info", "A problem at the edge of the data: the feed that would clear it ends inside the grace.",
        [
            .init(
                "awaiting_server_log", rule: 26, "The server log ends within the grace of the purchase (or the refund).",
                fields: pendingFacts, action: "none"),
            .init(
                "awaiting_apple_answer", rule: 26, "Apple's answers end within the grace of the grant without proof.",
                fields: pendingFacts, action: "none"),
        ]),
    FindingKindDeclaration(
        "regranted", "info", "Credited again where that is right (a restore).",
        .alike(
            rule: 10, fields: creditFacts, action: "none",
            [
                ("non_consumable", "A non-consumable restored."), ("auto_renewable", "A subscription credited again."),
                ("non_renewing", "A non-renewing subscription credited again."),
            ])),
    FindingKindDeclaration(
        "id_reissued", "info", "Apple re-issued one purchase under new transaction ids.",
        [
            .init(
                "same_billing_event", rule: 18, "Same original id and web order line item: one billing event.",
                fields: ["transaction_ids", "granted_transaction_ids"], action: "none")
        ]),
    FindingKindDeclaration(
        "outside_window", "info", "A purchase dated outside the audit window: these logs cannot judge it.",
        .alike(
            rule: 17, fields: ["judged", "dated_ms", "window_bound", "window_bound_ms"], action: "none",
            [("before_window", "Dated before the window."), ("after_window", "Dated after the window.")])),
    FindingKindDeclaration(
        "refund_superseded", "info", "A refunded purchase whose user holds a later purchase of the product.",
        [
            .init(
                "later_purchase", rule: 23, "The holder's later purchase stands in for the refunded one.",
                fields: refundFacts + ["later_purchases"], action: "none")
        ]),
]

/// The codes of an action (`FindingAction.code`): what a person does about a finding.
public let findingActionCodes: [(code: String, doc: String)] = [
    ("credit", "Credit the customer: Apple confirms a payment nobody holds."),
    ("revoke", "Take a credit back: refunded, sandbox, or credited more than once."),
    ("ask_apple", "Ask Apple (Get Transaction Info, or retry the verification) before deciding."),
    ("refuse", "Refuse the claim: Apple does not know the purchase (or a person refused it); tell the customer."),
    ("ask_customer", "Ask the customer (the id, the account, the order) before deciding."),
    ("fix_input", "Fix the input the run rejected or lacks, and run again."),
    ("none", "Nothing to do."),
]
