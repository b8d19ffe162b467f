import Foundation
import IAPAuditModel

/// What every rule reads about the transactions of one partition (semantics.md rules 8–24), over the
/// partition's facts (`TransactionFacts`). Transactions are local indexes of `facts`.
final class ReconcileContext {
    typealias Carrier = TransactionFacts.Carrier
    typealias Listing = TransactionFacts.Listing

    let facts: TransactionFacts
    let audit: AuditParameters
    let ranks: FileRanks
    let purchases: Purchases
    /// The partition of the purchases of several ids (elsewhere every purchase has one id: the others
    /// were set aside as they were read).
    let ofPurchases: Bool
    /// Findings that wait for another partition's facts (`CrossPartition`).
    private(set) var waiting: [CrossPartition.Waiting] = []
    private var verificationCache: [VerificationState??]

    init(facts: TransactionFacts, audit: AuditParameters, ranks: FileRanks, purchases: Purchases, ofPurchases: Bool = false) {
        (self.facts, self.audit, self.ranks, self.purchases, self.ofPurchases) = (facts, audit, ranks, purchases, ofPurchases)
        verificationCache = Array(repeating: nil, count: facts.count)
    }

    /// Sets a finding aside until another partition's facts settle it.
    func wait(_ waiting: CrossPartition.Waiting) { self.waiting.append(waiting) }

    var transactions: Range<Int32> { 0..<Int32(facts.count) }

    func text(_ t: FactText?) -> String? { facts.bytes.string(t) }

    /// The transaction id as the input wrote it.
    func id(_ t: Int32) -> String { facts.ids[Int(t)].text }

    /// Grants of T, in log order (rule 10 counts them with or without proof).
    func grants(_ t: Int32) -> [Carrier] { facts.carriers(t).filter(\.fact.isGrant) }

    /// Requests that carried T, in log order.
    func carriedBy(_ t: Int32) -> [Carrier] { facts.carriers(t).filter(\.fact.isCarried) }

    /// T and the other ids of its purchase (rule 18), in `Purchases` order (shortest, then smallest).
    func purchase(_ t: Int32) -> [Int32] {
        guard ofPurchases else { return [t] }
        let ids = purchases.ids(of: facts.ids[Int(t)])
        return ids.count == 1 ? [t] : ids.compactMap { facts.local(of: $0) }
    }

    /// True when `test` holds for T or another id of its purchase (without making the list of ids when
    /// T's purchase has one id).
    @inline(__always)
    func anyOfPurchase(_ t: Int32, _ test: (Int32) -> Bool) -> Bool { ofPurchases ? purchase(t).contains(where: test) : test(t) }

    /// True when T, or another id of its purchase, was granted.
    func isGranted(purchaseOf t: Int32) -> Bool { anyOfPurchase(t) { facts.carriers($0).contains(where: \.fact.isGrant) } }

    /// True when the client reported T, or another id of its purchase.
    func isReported(purchaseOf t: Int32) -> Bool { anyOfPurchase(t) { !facts.clients($0).isEmpty } }

    /// Rule 17: the client's earliest `purchased` ts of T's purchase, else Apple's earliest purchase date (of the
    /// purchase's best listings at `TrustLevel.dating` or above: a forged record dated years earlier, or an unsigned
    /// answer no request links to, moves no purchase out of the window).
    func purchaseDateMs(_ t: Int32) -> Int64? {
        let ids = purchase(t)
        let reported = ids.flatMap { facts.clients($0) }.filter { $0.fact.state == .purchased }.map(\.fact.tsMs).min()
        return reported ?? applePurchaseDateMs(of: ids)
    }

    /// How the listing is proven: its record's source and its own signature (`TrustLevel`); an unsigned answer no
    /// logged request links to (no `link` fact: a Notification V1, a bare answer, an unknown `request_id`) is
    /// `appleAnswerUnlinked`.
    @inline(__always)
    func trust(_ l: Listing) -> TrustLevel {
        let level = TrustLevel(source: l.fact.source, signature: l.fact.itemSignature)
        return level == .appleAnswerLogged && !l.linked ? .appleAnswerUnlinked : level
    }

    /// The listings of `ids` whose fields (dates, product, type, original id…) the rules read: those of the highest
    /// trust level any of them has (a verified listing's date is never overridden by a weaker one; docs/security.md,
    /// "Trust levels"), with that level; empty below `TrustLevel.needed`.
    func best(_ ids: [Int32]) -> (level: TrustLevel, listings: [Listing]) {
        var level = TrustLevel.needed
        var out: [Listing] = []
        for t in ids {
            for l in facts.listings(t) {
                let trust = trust(l)
                if trust < level { continue }
                if trust > level { (level, out) = (trust, []) }
                out.append(l)
            }
        }
        return (level, out)
    }

    /// T's best listings (`best`).
    func best(_ t: Int32) -> [Listing] { best([t]).listings }

    /// T's listings the rules read (`TrustLevel.needed` or above), in ledger order: a failed or unverified listing is
    /// evidence for nothing (docs/security.md, "Trust levels").
    func listings(_ t: Int32) -> LazyFilterSequence<ArraySlice<Listing>> { facts.listings(t).lazy.filter { self.trust($0).counts } }

    /// An Apple record that proves T was paid (rule 22): a production status-0 or 21006 answer, or a
    /// verified JWS, notification or receipt, whose environment signals agree, of our bundle, not a
    /// family member's own transaction. `ignoringConflict`: as if its environment signals agreed (rule 24).
    func provesPayment(_ l: Listing, ignoringConflict: Bool = false) -> Bool {
        // The bundle last: it reads text.
        evidence(l).provesPayment(ignoringConflict: ignoringConflict) && !isForeignBundle(l)
    }

    /// What the listing says about a payment (`PaymentEvidence`, shared with the close), its bundle aside.
    func evidence(_ l: Listing) -> PaymentEvidence {
        let f = l.fact
        return PaymentEvidence(
            status: f.status, environment: f.environment, environmentConflict: f.environmentConflict, isSigned: f.source.isSigned,
            itemSignature: f.itemSignature, itemEnvironment: f.itemEnvironment, familyShared: f.familyShared, foreignBundle: false)
    }

    /// The receipt's (else the transaction's) bundle id is known and not one of the config's.
    func isForeignBundle(_ l: Listing) -> Bool {
        guard !audit.config.bundleIds.isEmpty, let bundle = l.fact.bundleId ?? l.fact.itemBundleId else { return false }
        return !audit.config.bundleIds.contains(text(bundle)!)
    }

    /// A listing Apple stands behind for a revocation: an unsigned Apple answer, or a verified signed record
    /// (an unchecked decoded payload, which anyone could write, proves nothing).
    func isTrusted(_ l: Listing) -> Bool { trust(l).counts }

    /// The record itself is one the rules read (its own fields, as a notification's type: the worst of its parts'
    /// signatures at `TrustLevel.needed` or above).
    func isRecordTrusted(_ l: Listing) -> Bool { TrustLevel(source: l.fact.source, signature: l.fact.signature).counts }

    /// The notification that lists the listing is one the rules read (its type, such as REFUND_REVERSED): by that
    /// notification's own signature. An entry of a Server API page (Get Notification History) by its item's, which
    /// holds its entry's (`SignedEvidence.nestedTransaction`): the page's combined signature is every entry's, and one
    /// forged entry must not cancel a genuine one. Elsewhere the record's (`isRecordTrusted`).
    func isNotificationTrusted(_ l: Listing) -> Bool { l.fact.source == .serverAPI ? isTrusted(l) : isRecordTrusted(l) }

    /// Rule 22: the Apple record that confirms the payment of T's purchase — one that proves payment and
    /// lists it unrefunded (a refund Apple gave later does not unmake the payment); nil when only the
    /// client claims it, or every such record shows it refunded.
    func confirmation(_ t: Int32) -> Listing? {
        purchase(t).lazy.flatMap { self.facts.listings($0) }.first { self.provesPayment($0) && $0.fact.cancellationDateMs == nil }
    }

    /// Rule 22 for a dropped order: confirmed, refunded (every record that proves the payment shows it
    /// refunded), or claimed; and the record that says so.
    func appleConfirmation(_ t: Int32) -> (AppleConfirmation, Listing?) {
        if let confirmed = confirmation(t) { return (.confirmed, confirmed) }
        if let refunded = purchase(t).lazy.flatMap({ self.facts.listings($0) }).first(where: { self.provesPayment($0) }) {
            return (.refunded, refunded)
        }
        return (.claimed, nil)
    }

    /// Apple's error codes by which a Get Transaction Info asked by the id says there is no such purchase: 4040010
    /// (`TransactionIdNotFoundError`), 4000006 (`InvalidTransactionIdError`).
    static let notFoundCodes: Set<Int64> = [4_040_010, 4_000_006]

    /// Rule 25: the newest production answer, asked by an id of T's purchase, that Apple has no such transaction; nil when
    /// none, or when a production answer asked by the id found it.
    func appleNotFound(_ t: Int32) -> LookupFact? {
        let answers = purchase(t).flatMap { facts.lookups($0) }.filter { $0.environment == .production || $0.environment == .none }
        if answers.contains(where: { $0.status == 0 }) { return nil }
        return answers.filter { Self.notFoundCodes.contains($0.status) }.max { ($0.receivedAtMs ?? 0) < ($1.receivedAtMs ?? 0) }
    }

    /// Rule 14 for T; nil when nothing is unresolved.
    func verification(_ t: Int32) -> VerificationState? {
        if let cached = verificationCache[Int(t)] { return cached }
        let state = VerificationState(carriers: carriedBy(t), asOfMs: audit.asOfMs, graceMs: audit.graceMs)
        let result = state.isUnresolved ? state : nil
        verificationCache[Int(t)] = .some(result)
        return result
    }

    /// T waits for an answer younger than the grace: not yet a dropped order (rule 14).
    func isPending(_ t: Int32) -> Bool { verification(t)?.isOverdue == false }

    /// Product id of T: Apple's listings first (those the rules read), else the client reports.
    func productId(_ t: Int32) -> String? {
        text(best(t).lazy.compactMap(\.fact.productId).first ?? facts.clients(t).lazy.compactMap(\.fact.productId).first)
    }

    /// T's product type: the config's `products`, else the JWS `type` Apple gives; nil when unknown.
    func productType(_ t: Int32) -> ProductType? {
        if let product = productId(t), let type = audit.config.products[product] { return type }
        return best(t).lazy.compactMap { $0.fact.type.flatMap { self.text($0) }.flatMap(ProductType.init(jwsType:)) }.first
    }

    /// Apple lists T as a subscription period: with a `web_order_line_item_id` or an expiry date.
    func isSubscriptionLike(_ t: Int32) -> Bool {
        best(t).contains { $0.fact.webOrderLineItemId != nil || $0.fact.expiresDateMs != nil }
    }

    /// Apple's earliest purchase date of T, UTC ms: of T's best listings (`best`), when those are at `TrustLevel.dating`
    /// or above (rule 17); else nil.
    func applePurchaseDateMs(_ t: Int32) -> Int64? {
        let (level, listings) = best([t])
        return level >= .dating ? listings.compactMap(\.fact.purchaseDateMs).min() : nil
    }

    /// The earliest of `ids`' Apple purchase dates (`applePurchaseDateMs`), UTC ms.
    func applePurchaseDateMs(of ids: [Int32]) -> Int64? { ids.compactMap(applePurchaseDateMs).min() }

    func originalTransactionId(_ t: Int32) -> String? {
        if let id = best(t).lazy.compactMap(\.fact.originalId).first { return GlobalId(id, in: facts.bytes).text }
        return text(facts.clients(t).lazy.compactMap(\.fact.originalId).first)
    }

    func location(_ fileId: UInt32, _ line: UInt32) -> SourceLocation { ranks.location(fileId, line) }

    func location(_ l: Listing) -> SourceLocation { location(l.fact.fileId, l.fact.line) }

    /// A finding about T with product and original id filled in from what is known of T (`lossAtMs` nil: the loss
    /// happened when first seen). A dropped order
    /// says whether Apple confirms the payment (rule 22), the confirming record among its evidence.
    func finding(
        _ cause: FindingReason, _ t: Int32, users: [String?] = [], environment: String? = nil,
        firstSeenMs: Int64?, lossAtMs: Int64? = nil, evidence: [SourceLocation], facts: FindingFacts = FindingFacts()
    ) -> Finding {
        let kind = cause.kind
        var evidence = evidence
        var facts = facts
        var confirmation: AppleConfirmation? = nil
        if kind == .droppedOrder {
            let (said, record) = appleConfirmation(t)
            if let record { evidence.append(location(record)) }
            confirmation = said
            if said == .claimed, let answer = appleNotFound(t) {
                let at = location(answer.fileId, answer.line)
                (confirmation, facts[.appleNotFound]) = (.notFound, .text(at.description))
                evidence.append(at)
            }
        }
        // A dropped order is a loss of its purchase's date as rule 17 dates it (the client's earliest `purchased` report,
        // else Apple's purchase date): the date a close's window judges it by, so that each close books it once (its
        // first record, a request logged before the client's report, may be of the period before).
        let lossAtMs = lossAtMs ?? (kind == .droppedOrder ? purchaseDateMs(t) : nil)
        var finding = Finding(
            kind: kind, reason: cause.name, transactionId: id(t), originalTransactionId: originalTransactionId(t),
            productId: productId(t), userIds: users.compactMap { $0 }, environment: environment, firstSeenMs: firstSeenMs,
            lossAtMs: lossAtMs, evidence: evidence, facts: facts, appleConfirmation: confirmation)
        finding.detail = FindingSentence.text(finding)
        return finding
    }

    /// Rule 17 for a payment judgment about T dated `ms`: an info `outside_window` finding when the date
    /// falls outside the window (`appleOnly`: a purchase only Apple lists, also judged from the logs' start).
    /// `judged`: what would have been judged (the `judged` fact, e.g. `purchase_reported`).
    func outsideWindow(
        _ t: Int32, dateMs: @autoclosure () -> Int64?, appleOnly: Bool, users: @autoclosure () -> [String?],
        evidence: @autoclosure () -> [SourceLocation], judged: String
    ) -> Finding? {
        let window = audit.window
        // Without --from/--to only purchases Apple alone lists are windowed (and only from the logs' start).
        if window.fromMs == nil && window.toMs == nil && (!appleOnly || window.logStartMs == nil) { return nil }
        let dateMs = dateMs()
        guard let side = appleOnly ? window.outsideForAppleOnly(dateMs) : window.outside(dateMs), let dateMs else { return nil }
        var facts = FindingFacts()
        facts.set(.judged, judged)
        facts.set(.datedMs, dateMs)
        if side == .afterWindow {
            let end = appleOnly ? window.appleOnlyEndMs! : window.toMs!
            facts.set(.windowBound, end == window.toMs ? "to" : "logs_end")
            facts.set(.windowBoundMs, end)
        } else {
            let start = appleOnly ? window.startMs! : window.fromMs!
            facts.set(.windowBound, start == window.fromMs ? "from" : "logs_start")
            facts.set(.windowBoundMs, start)
        }
        return finding(
            side == .afterWindow ? .outsideWindowAfterWindow : .outsideWindowBeforeWindow, t, users: users(), firstSeenMs: dateMs,
            evidence: evidence(), facts: facts)
    }

    /// A `dropped_order` finding for T with `reason` and the facts `fill` sets, or rule 17's `outside_window` one (judged
    /// `purchase_<reason>`) when T's purchase date falls outside the window. `trail`: T's, whose first-seen time the finding
    /// takes; `evidence`: the trail's and the rule's other records.
    func droppedPurchase(
        _ t: Int32, _ cause: FindingReason, users: [String?], grants: [Carrier], trail: (evidence: [SourceLocation], firstSeenMs: Int64?),
        evidence: [SourceLocation], fill: (inout FindingFacts) -> Void
    ) -> Finding {
        if let outside = outsideWindow(
            t, dateMs: purchaseDateMs(t), appleOnly: false, users: users, evidence: evidence, judged: "purchase_" + cause.name)
        {
            return outside
        }
        var facts = FindingFacts()
        fill(&facts)
        return finding(
            cause, t, users: users, environment: environments(grants), firstSeenMs: trail.firstSeenMs, evidence: evidence, facts: facts)
    }

    /// Evidence and first-seen time of T's client reports and the given requests.
    func trail(_ t: Int32, _ requests: [Carrier]) -> (evidence: [SourceLocation], firstSeenMs: Int64?) { trail([t], requests) }

    /// Evidence and first-seen time of the client reports of `ids` and the given requests.
    func trail(_ ids: [Int32], _ requests: [Carrier]) -> (evidence: [SourceLocation], firstSeenMs: Int64?) {
        let reports = ids.flatMap { facts.clients($0) }
        var evidence = reports.map { location($0.fact.fileId, $0.fact.line) }
        for c in requests { evidence += facts.evidence(c).map { location($0.fileId, $0.line) } }
        let times = reports.map(\.fact.tsMs) + requests.map(\.fact.firstSeenMs)
        return (evidence, times.min())
    }

    /// Distinct environments of the given requests, joined with `, `; nil when none is known.
    func environments(_ requests: [Carrier]) -> String? {
        var seen: [String] = []
        for c in requests {
            if let environment = text(c.fact.environment), !seen.contains(environment) { seen.append(environment) }
        }
        return seen.isEmpty ? nil : seen.joined(separator: ", ")
    }

    /// Users (nil: a grant without a user) still holding after the revokes up to `ms`: their last grant is
    /// followed by no revoke for them (or for nobody in particular). Users are exact text (rule 1).
    func holders(_ grants: [Carrier], _ revokes: some Collection<TransactionFacts.Revoke>, at ms: Int64 = Int64.max) -> [String?] {
        var lastGrant: [ExactText?: Int64] = [:]
        for grant in grants {
            let user = text(grant.fact.userId).map(ExactText.init)
            lastGrant[user] = max(lastGrant[user] ?? Int64.min, grant.fact.tsMs)
        }
        return lastGrant.filter { user, grantedAt in
            !revokes.contains {
                $0.fact.tsMs <= ms && $0.fact.tsMs >= grantedAt
                    && ($0.fact.userId == nil || text($0.fact.userId).map(ExactText.init) == user)
            }
        }.keys.map { $0?.text }
    }

    /// Users of records, as text.
    func users(_ requests: [Carrier]) -> [String?] { requests.map { text($0.fact.userId) } }

    func requestId(_ c: Carrier) -> String { text(c.fact.requestId)! }

    /// The same request (carriers of one transaction are one per request).
    static func same(_ a: Carrier, _ b: Carrier) -> Bool { a.order == b.order }
}

/// semantics.md rule 14 for one transaction: which requests carrying it are unresolved (no answer, or
/// a retryable status) and not cleared by a later status-0 request.
struct VerificationState {
    /// Uncleared unresolved requests, oldest first.
    let uncleared: [TransactionFacts.Carrier]
    let asOfMs: Int64
    let graceMs: Int64

    init(carriers: [TransactionFacts.Carrier], asOfMs: Int64, graceMs: Int64) {
        self.asOfMs = asOfMs
        self.graceMs = graceMs
        // A request is cleared by any later status-0 request, or 21006 listing T (rule 7): compare with the
        // latest one (linear).
        let lastSuccessMs =
            carriers.filter { $0.fact.status == 0 || ($0.fact.status == 21006 && $0.fact.finalContains) }.map(\.fact.tsMs).max()
            ?? Int64.min
        uncleared = carriers.filter { $0.fact.unresolved != 0 && lastSuccessMs <= $0.fact.tsMs }.sorted {
            ($0.fact.tsMs, $0.order) < ($1.fact.tsMs, $1.order)
        }
    }

    var isUnresolved: Bool { !uncleared.isEmpty }

    /// Uncleared requests older than the grace (strictly).
    var overdue: [TransactionFacts.Carrier] { uncleared.filter { asOfMs - $0.fact.tsMs > graceMs } }

    /// True when some uncleared request is older than the grace: a backlog, not a pending one.
    var isOverdue: Bool { uncleared.contains { asOfMs - $0.fact.tsMs > graceMs } }

    /// The finding: a backlog when some request is overdue, else pending; its reason that of the newest overdue request,
    /// else of the newest uncleared one (`unresolved` 1: no answer, 2: a retryable status).
    var cause: FindingReason {
        let retryable = (overdue.last ?? uncleared.last!).fact.unresolved == 2
        if isOverdue { return retryable ? .verificationBacklogRetryableStatus : .verificationBacklogNoVerifyResponse }
        return retryable ? .pendingVerificationRetryableStatus : .pendingVerificationNoVerifyResponse
    }
}
