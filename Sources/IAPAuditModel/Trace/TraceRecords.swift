/// What `iap-audit trace ID` found for one id (README "Investigating one transaction"): how the id
/// matched, and per transaction its timeline across every record of the ledger, its findings and, once
/// judged (`TraceJudge`), its verdict. Times are UTC milliseconds.
package struct TraceResult: Sendable {
    /// The id as asked, exact text.
    package var id: String
    /// The kinds of id it matched, each with the columns that hold it; empty when nothing does.
    package var matches: [TraceMatch] = []
    /// Every transaction the id leads to, in id byte order (`trace` traces each).
    package var transactions: [TransactionTrace] = []
    /// Records of the id that name no transaction (a failed or cancelled purchase the client reported; Apple's
    /// answer for an order id listing none), by time.
    package var unattached: [TraceEvent] = []
    /// Near matches of an unknown id (another case, a typo in the last characters): id, kind, and why it is
    /// near in words (`white space trimmed`, `other case`, `one character left out near its end`…).
    package var nearMatches: [(id: String, kind: TraceIdKind, why: String)] = []
    /// The rejected input lines holding an unknown id (table `rejection`), the first `TraceRejectedLine.limit`.
    package var rejectedLines: [TraceRejectedLine] = []
    /// More rejected lines than `rejectedLines` hold the id.
    package var moreRejectedLines = false
    /// What to do when no transaction holds the answer (set by `TraceJudge`): fix the rejected lines holding
    /// an unknown id, or tell the customer Apple does not know an order id.
    package var nextAction: (code: TraceAction, text: String)?
    /// The ledger read and its last run's parameters (`as_of`, `grace_hours`, `audit_window`, `run_status`).
    package var ledgerPath: String
    package var runParameters: [String: String] = [:]
    /// What the trace shows of user and device ids (`trace --redact`, a ledger made with `--redact-ledger`):
    /// `outputs, key k_…` (tokens of the ledger's original ids) or `ledger, key k_…` (the ledger's tokens).
    package var redaction: String?
    /// Lines said under the ledger's: what the redaction means for this trace.
    package var notes: [String] = []
    /// The evidence files the ledger holds as its last recorded run did not (`source_file` against `run_input`):
    /// imported by a close, or by a run that did not complete. Their records are shown; no finding judges them yet.
    package var unjudgedFiles: [String] = []
    /// The files the last recorded run held whose records have left the ledger since (emptied, or forgotten), by a close
    /// or a run that did not complete: the findings may rest on records no longer there.
    package var removedFiles: [String] = []

    package init(id: String, ledgerPath: String) { (self.id, self.ledgerPath) = (id, ledgerPath) }

    /// The audit instant of the run that made the ledger.
    package var asOfMs: Int64? { runParameters["as_of"].flatMap(Timestamp.parseMs) }
}

/// The kinds of id `trace` looks an id up as, and the columns it searches for each.
package enum TraceIdKind: String, CaseIterable, Sendable {
    case transactionId = "transaction_id", originalTransactionId = "original_transaction_id", orderId = "order_id"
    case userId = "user_id", deviceId = "device_id", requestId = "request_id", webOrderLineItemId = "web_order_line_item_id"

    /// In words: `transaction id`, `Apple order id`…
    package var label: String {
        switch self {
        case .orderId: return "Apple order id"
        default: return rawValue.replacingOccurrences(of: "_", with: " ")
        }
    }

    /// The `table.column`s searched (each has an index: docs/schema.md).
    package var columns: [String] {
        switch self {
        case .transactionId:
            return [
                "client_report.transaction_id", "apple_transaction.transaction_id", "finding.transaction_id",
                "server_request.transaction_ids (first id)",
            ]
        case .originalTransactionId: return ["apple_transaction.original_transaction_id", "client_report.original_transaction_id"]
        case .orderId: return ["apple_record.order_id"]
        case .userId: return ["client_report.user_id", "server_request.user_id"]
        case .deviceId: return ["client_report.device_id", "server_request.device_id"]
        case .requestId: return ["server_request.request_id", "apple_record.request_id"]
        case .webOrderLineItemId: return ["apple_transaction.web_order_line_item_id"]
        }
    }
}

/// One kind of id the asked id is, and the columns that hold it.
package struct TraceMatch: Sendable, Equatable {
    package var kind: TraceIdKind
    package var columns: [String]

    package init(kind: TraceIdKind, columns: [String]) { (self.kind, self.columns) = (kind, columns) }
}

/// One transaction's trace.
package struct TransactionTrace: Sendable {
    package var transactionId: String
    package var originalTransactionId: String?
    package var productId: String?
    /// Every record about it, by time (records without a time last), then source, file and line.
    package var events: [TraceEvent] = []
    /// The findings on it (table `finding`, in table order).
    package var findings: [Finding] = []
    /// Where each of `findings` stands across runs (`finding_state`: open since run N, or acknowledged
    /// with its note), in the same order; nil where the ledger keeps no state for it.
    package var findingStates: [FindingState?] = []
    /// What to do about each of `findings` (`finding_action`, joined with its lifecycle); nil for a ledger of a
    /// version before actions, until its next run.
    package var findingActions: [FindingAction?] = []
    /// Its findings that a later run resolved (no longer in `finding`): when, and by which records.
    package var resolvedFindings: [FindingState] = []
    /// Lines the runs rejected that name its id (the run could not read them: what they hold is in no finding).
    package var rejectedLines: [TraceRejectedLine] = []
    /// What people did about it (`iap-audit resolve`, table `manual_action`), oldest first: shown with the timeline,
    /// and part of the verdict before the next run reads them (rule 25).
    package var manualActions: [ManualAction] = []
    /// Set by `TraceJudge`.
    package var verdict: TraceVerdict?

    package init(transactionId: String) { self.transactionId = transactionId }

    /// When it was bought, by Apple's records (the earliest `purchase_date` a listing of it gives; UTC ms): the
    /// date a customer's "I paid on …" names. Nil when no Apple record lists it. A listing below the trust level the
    /// rules need (`TraceEvent.unproven`) dates nothing.
    /// Only the listings of the highest trust level present date it (docs/security.md, "Trust levels"): a Notification
    /// V1 body no request asked for never dates a purchase a verified or logged listing dates.
    package var purchaseMs: Int64? {
        let dated = events.compactMap { event -> (TrustLevel, Int64)? in
            guard case .apple(let a) = event.detail, let level = event.level, level.counts, let ms = a.listing?.purchaseMs else {
                return nil
            }
            return (level, ms)
        }
        guard let top = dated.map(\.0).max() else { return nil }
        return dated.filter { $0.0 == top }.map(\.1).min()
    }

    /// Apple's price of it: the first listing on the timeline of a verified signed record that gives a price and
    /// currency (as `FindingAction.amountMilliunits` takes it); nil when none does.
    package var verifiedPrice: Money? {
        for event in events {
            guard case .apple(let a) = event.detail, let l = a.listing, l.signature == "verified", let price = l.price else { continue }
            return price
        }
        return nil
    }

    /// The action of `finding`, one of `findings`, as the ledger holds it.
    package func action(of finding: Finding) -> FindingAction? {
        guard let i = findings.firstIndex(where: { $0 == finding }), i < findingActions.count else { return nil }
        return findingActions[i]
    }

    /// The lifecycle state of `finding`, one of `findings`.
    package func state(of finding: Finding) -> FindingState? {
        guard let i = findings.firstIndex(where: { $0 == finding }), i < findingStates.count else { return nil }
        return findingStates[i]
    }
}

/// One record on a transaction's timeline.
package struct TraceEvent: Sendable {
    /// The record's time: a log's `ts`, an Apple record's `received_at`, else its signed or request date.
    package var timeMs: Int64?
    /// `client_report`, `server_request`, or the Apple record's `source` (`verify_receipt`, `server_api`…).
    package var source: String
    package var location: SourceLocation
    package var detail: Detail

    package enum Detail: Sendable {
        case client(TraceClientReport)
        case request(TraceRequest)
        case apple(TraceAppleRecord)
    }

    package init(timeMs: Int64?, source: String, location: SourceLocation, detail: Detail) {
        (self.timeMs, self.source, self.location, self.detail) = (timeMs, source, location, detail)
    }

    /// Timeline order: time (none last), then client, server, Apple, then file and line.
    package static func timelineOrder(_ a: TraceEvent, _ b: TraceEvent) -> Bool {
        let (ta, tb) = (a.timeMs ?? .max, b.timeMs ?? .max)
        if ta != tb { return ta < tb }
        if a.rank != b.rank { return a.rank < b.rank }
        return a.location < b.location
    }

    /// Why this Apple record proves nothing, when it is below the trust level the rules need (`TrustLevel.needed`;
    /// docs/security.md, "Trust levels"): its listing's own signature as stored (else, listing nothing, the record's)
    /// and its source, as the warnings name it (`untrusted_root, signed_transaction`). Nil when it counts, and for a
    /// log's record. Such a record is shown on the timeline; the verdict reads nothing of it.
    package var unproven: String? {
        guard case .apple(let a) = detail else { return nil }
        let signature = a.listing?.signature ?? a.signature
        return TrustLevel.of(source: source, signature: signature).counts ? nil : "\(signature), \(source)"
    }

    /// An Apple record's trust level (`TrustLevel`): its listing's own signature as stored (else the record's) and its
    /// source; an unsigned answer no logged request links to is `appleAnswerUnlinked`. Nil for a log's record.
    package var level: TrustLevel? {
        guard case .apple(let a) = detail else { return nil }
        let level = TrustLevel.of(source: source, signature: a.listing?.signature ?? a.signature)
        return level == .appleAnswerLogged && !a.linked ? .appleAnswerUnlinked : level
    }

    private var rank: Int {
        switch detail {
        case .client: return 0
        case .request: return 1
        case .apple: return 2
        }
    }
}

/// A client report (`client_report`).
package struct TraceClientReport: Sendable {
    package var userId: String?
    package var deviceId: String?
    package var transactionId: String?
    package var productId: String?
    /// StoreKit's state: `purchased`, `failed`, `restored`…
    package var state: String
    package var errorCode: Int?
    package var quantity: Int?

    package init(state: String) { self.state = state }
}

/// A server-log request (`server_request`): a verification or a revoke.
package struct TraceRequest: Sendable {
    package var requestId: String
    /// `verify` or `revoke`.
    package var event: String
    package var userId: String?
    package var deviceId: String?
    package var postedIds: [String] = []
    /// `credited_transaction_ids`, when the server logged them.
    package var creditedIds: [String]?
    package var granted: Bool = false
    package var restore: Bool = false
    package var loggedStatus: Int?
    package var environment: String?
    package var latencyMs: Int64?
    /// Why it is on this transaction's timeline.
    package var relation: Relation = .posted
    /// What the posted id stands for when it is not this transaction (semantics.md rule 6: an id the final
    /// answer does not list stands for the answer's newest transaction with that original id).
    package var standsFor: String?
    /// It credited this transaction: a granted verify whose credited ids (else posted ids), resolved by
    /// rule 6, hold it.
    package var creditsTransaction = false
    /// Units it credited of this transaction, when it did (`creditsTransaction`): the server log's `credited_quantity`
    /// for it (set by the reader), else Apple's listed `quantity`, else the client's reported one (set by `TraceJudge`);
    /// nil when none says.
    package var creditedQuantity: Int?
    /// Where `creditedQuantity` comes from: `credited_quantity` (the server log), `apple` (an Apple listing the verdict
    /// reads) or `client` (a client report); nil when no quantity is known.
    package var quantitySource: String?

    package enum Relation: String, Sendable {
        /// It posted (or credited) the transaction's id, standing for it.
        case posted
        /// It posted the transaction's original id, standing for it (rule 6: a renewal credited through
        /// its original id).
        case postedOriginal = "posted_original"
        /// It posted the transaction's id or original id, standing for another transaction (`standsFor`).
        case postedForAnother = "posted_for_another"
        /// It posted neither, but Apple's answer to it lists the transaction.
        case answerLists = "answer_lists"
    }

    package init(requestId: String, event: String) { (self.requestId, self.event) = (requestId, event) }

    /// Every id it posted or credited.
    package var namedIds: [String] { postedIds + (creditedIds ?? []) }
}

/// An Apple record (`apple_record`): an answer to a request, or a record that lists the transaction.
package struct TraceAppleRecord: Sendable {
    package var requestId: String?
    package var orderId: String?
    package var status: Int = 0
    package var environment: String?
    package var receiptType: String?
    /// The record's signature (of the JWS or receipt, or combined over a page's nested JWS).
    package var signature: String = "not_checked"
    package var notificationType: String?
    package var notificationSubtype: String?
    package var receiptCreatedMs: Int64?
    /// A Look Up Order ID answer's own `status` when not 0 (1: Apple does not know the order id).
    package var orderStatus: Int?
    /// How it lists the transaction; nil: it does not (an answer to a request that carried it).
    package var listing: TraceListing?
    /// It names a verification request of the server log (`request_id`): false for a Notification V1 body, a bare
    /// answer, a `request_id` the log lacks.
    package var linked = true

    package init() {}
}

/// The transaction as one Apple record lists it (`apple_transaction`), with what it proves.
package struct TraceListing: Sendable {
    package var productId: String?
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var quantity: Int?
    package var purchaseMs: Int64?
    package var expiresMs: Int64?
    /// Apple refunded or revoked it (`cancellation_date`, JWS `revocationDate`).
    package var cancellationMs: Int64?
    package var revocationType: String?
    /// Thousandths of a percent.
    package var revocationPercentage: Int?
    package var price: Money?
    package var environment: String?
    package var sections: String = ""
    /// The listing's own signature (each nested JWS is checked on its own).
    package var signature: String = "not_checked"
    /// The type of the notification that listed it (`REFUND_REVERSED`…), else nil.
    package var notificationType: String?
    /// When Apple issued it: its signed date, else the record's, else `received_at`.
    package var issuedMs: Int64?
    /// What it proves (rules 9, 22, 24).
    package var evidence: PaymentEvidence

    package init(evidence: PaymentEvidence) { self.evidence = evidence }
}

extension TraceListing {
    /// Why the listing proves no payment (`PaymentEvidence.provesPayment`'s tests, in its order), in words.
    package var whyNoProof: String {
        let e = evidence
        if e.status != 0 && e.status != 21006 { return "status \(e.status): \(VerifyStatus.meaning(Int(e.status)))" }
        if e.environment.isSandbox { return "a sandbox answer" }
        if e.environmentConflict { return "its environment signals disagree (rule 24)" }
        if !e.isTrusted { return "signature \(signature)" }
        if e.itemEnvironment != .none && e.itemEnvironment != .production { return "environment \(environment ?? "")" }
        if e.familyShared { return "a family member's own transaction (FAMILY_SHARED)" }
        return e.foreignBundle ? "another app's bundle id" : "no proof"
    }
}

/// A rejected input line (table `rejection`) that holds the id asked as a whole id: the run could not read it.
/// Its raw text is never shown (it may hold what `--redact` hides).
package struct TraceRejectedLine: Sendable, Equatable {
    package var location: SourceLocation
    package var reason: String

    package init(location: SourceLocation, reason: String) { (self.location, self.reason) = (location, reason) }

    /// At most this many are shown.
    package static let limit = 20
    /// A trace of at most this many transactions lists the rejected lines naming each.
    package static let transactionsSearched = 20
}
