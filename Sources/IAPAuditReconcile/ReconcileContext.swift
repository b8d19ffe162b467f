import Foundation
import IAPAuditModel

/// What every rule reads about the transactions of one partition (SEMANTICS rules 8–14), over the
/// partition's facts (`TransactionFacts`). Transactions are local indexes of `facts`.
final class ReconcileContext {
    typealias Carrier = TransactionFacts.Carrier
    typealias Listing = TransactionFacts.Listing

    let facts: TransactionFacts
    let config: AuditConfig
    /// ms since 1970 UTC: the instant the audit speaks for.
    let asOfMs: Int64
    let graceMs: Int64
    let ranks: FileRanks
    let billing: BillingEvents
    private var verificationCache: [VerificationState??]

    init(facts: TransactionFacts, config: AuditConfig, asOfMs: Int64, graceMs: Int64, ranks: FileRanks, billing: BillingEvents) {
        (self.facts, self.config, self.asOfMs, self.graceMs, self.ranks, self.billing) = (facts, config, asOfMs, graceMs, ranks, billing)
        verificationCache = Array(repeating: nil, count: facts.count)
    }

    var transactions: Range<Int32> { 0..<Int32(facts.count) }

    func text(_ t: FactText?) -> String? { facts.bytes.string(t) }

    /// The transaction id as the input wrote it.
    func id(_ t: Int32) -> String { facts.ids[Int(t)].text }

    /// Grants of T, in log order (rule 10 counts them with or without proof).
    func grants(_ t: Int32) -> [Carrier] { facts.carriers(t).filter(\.fact.isGrant) }

    /// Requests that carried T, in log order.
    func carriedBy(_ t: Int32) -> [Carrier] { facts.carriers(t).filter(\.fact.isCarried) }

    /// T and the other ids Apple issued for the same purchase, in billing-event order.
    func billingEvent(_ t: Int32) -> [Int32] {
        guard !billing.isEmpty else { return [t] }
        let ids = billing.ids(of: facts.ids[Int(t)])
        return ids.count == 1 ? [t] : ids.compactMap { facts.local(of: $0) }
    }

    /// True when T, or another id Apple re-issued for the same purchase, was granted.
    func isGranted(billingEventOf t: Int32) -> Bool { billingEvent(t).contains { facts.carriers($0).contains(where: \.fact.isGrant) } }

    /// True when the client reported T, or another id Apple re-issued for the same purchase.
    func isReported(billingEventOf t: Int32) -> Bool { billingEvent(t).contains { !facts.clients($0).isEmpty } }

    /// Rule 14 for T; nil when nothing is unresolved.
    func verification(_ t: Int32) -> VerificationState? {
        if let cached = verificationCache[Int(t)] { return cached }
        let state = VerificationState(carriers: carriedBy(t), asOfMs: asOfMs, graceMs: graceMs)
        let result = state.isUnresolved ? state : nil
        verificationCache[Int(t)] = .some(result)
        return result
    }

    /// T waits for an answer younger than the grace: not yet a dropped order (rule 14).
    func isPending(_ t: Int32) -> Bool { verification(t)?.isOverdue == false }

    /// Product id of T: Apple's listings first, else the client reports.
    func productId(_ t: Int32) -> String? {
        text(facts.listings(t).lazy.compactMap(\.fact.productId).first ?? facts.clients(t).lazy.compactMap(\.fact.productId).first)
    }

    func originalTransactionId(_ t: Int32) -> String? {
        if let id = facts.listings(t).lazy.compactMap(\.fact.originalId).first { return GlobalId(id, in: facts.bytes).text }
        return text(facts.clients(t).lazy.compactMap(\.fact.originalId).first)
    }

    func location(_ fileId: UInt32, _ line: UInt32) -> SourceLocation { ranks.location(fileId, line) }

    func location(_ l: Listing) -> SourceLocation { location(l.fact.fileId, l.fact.line) }

    /// A finding about T with product and original id filled in from what is known of T.
    func finding(
        _ kind: FindingKind, _ reason: String, _ t: Int32, users: [String?] = [], environment: String? = nil,
        firstSeenMs: Int64?, evidence: [SourceLocation], detail: String
    ) -> Finding {
        Finding(
            kind: kind, reason: reason, transactionId: id(t), originalTransactionId: originalTransactionId(t),
            productId: productId(t), userIds: users.compactMap { $0 }, environment: environment, firstSeenMs: firstSeenMs,
            evidence: evidence, detail: detail)
    }

    /// Evidence and first-seen time of T's client reports and the given requests.
    func trail(_ t: Int32, _ requests: [Carrier]) -> (evidence: [SourceLocation], firstSeenMs: Int64?) {
        let reports = facts.clients(t)
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

    /// Users of records, as text.
    func users(_ requests: [Carrier]) -> [String?] { requests.map { text($0.fact.userId) } }

    func requestId(_ c: Carrier) -> String { text(c.fact.requestId)! }

    /// The same request (carriers of one transaction are one per request).
    static func same(_ a: Carrier, _ b: Carrier) -> Bool { a.order == b.order }
}

/// SEMANTICS rule 14 for one transaction: which requests carrying it are unresolved (no answer, or
/// a retryable status) and not cleared by a later status-0 request.
struct VerificationState {
    /// Uncleared unresolved requests, oldest first.
    let uncleared: [TransactionFacts.Carrier]
    let asOfMs: Int64
    let graceMs: Int64

    init(carriers: [TransactionFacts.Carrier], asOfMs: Int64, graceMs: Int64) {
        self.asOfMs = asOfMs
        self.graceMs = graceMs
        // A request is cleared by any later status-0 request: compare with the latest one (linear).
        let lastSuccessMs = carriers.filter { $0.fact.status == 0 }.map(\.fact.tsMs).max() ?? Int64.min
        uncleared = carriers.filter { $0.fact.unresolved != 0 && lastSuccessMs <= $0.fact.tsMs }.sorted {
            ($0.fact.tsMs, $0.order) < ($1.fact.tsMs, $1.order)
        }
    }

    var isUnresolved: Bool { !uncleared.isEmpty }

    /// Uncleared requests older than the grace (strictly).
    var overdue: [TransactionFacts.Carrier] { uncleared.filter { asOfMs - $0.fact.tsMs > graceMs } }

    /// True when some uncleared request is older than the grace: a backlog, not a pending one.
    var isOverdue: Bool { uncleared.contains { asOfMs - $0.fact.tsMs > graceMs } }

    /// The reason reported: that of the newest overdue request, else of the newest uncleared one.
    var reason: String { Self.reasons[Int((overdue.last ?? uncleared.last!).fact.unresolved)] }

    static let reasons = ["", "no_verify_response", "retryable_status"]
}
