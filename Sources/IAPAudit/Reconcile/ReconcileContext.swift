/// The indexes every rule reads, built once from the ledger.
struct ReconcileContext {
    let config: AuditConfig
    /// Milliseconds since 1970 UTC: the instant the audit speaks for.
    let asOfMs: Int64
    let graceMs: Int64
    /// Verification requests (event `verify`), one per `request_id`, in log order.
    let requests: [RequestView]
    /// `request_id` → index into `requests`.
    let requestIndex: [String: Int]
    /// Revoke records (event `revoke`) by the transaction ids they name.
    let revokes: [String: [ServerRequest]]
    let responses: [VerifyResponse]
    /// Client reports by `transaction_id`.
    let clientReports: [String: [ClientReport]]
    /// Requests that carried each transaction id (indexes into `requests`).
    let carriedBy: [String: [Int]]
    /// Grants by transaction id, in log order.
    let grants: [String: [Grant]]
    /// Every response item, by transaction id, with the response index.
    let items: [String: [Listing]]
    /// Rule 14 per transaction: unresolved requests not yet cleared.
    let verification: [String: VerificationState]
    /// Ids Apple re-issued for one purchase (`id_reissued`).
    let billingEvents: BillingEvents
    /// `signedDate`s of REFUND_REVERSED notifications (signature not failed), by transaction id.
    let refundReversals: [String: [Int64]]

    init(ledger: Ledger, config: AuditConfig, asOfMs: Int64, graceMs: Int64) {
        self.config = config
        self.asOfMs = asOfMs
        self.graceMs = graceMs
        let responses = ledger.verifyResponses.droppingNotificationRedeliveries()
        self.responses = responses

        var linked: [String: [VerifyResponse]] = [:]
        for response in responses {
            if let id = response.requestId { linked[id, default: []].append(response) }
        }
        var order: [String] = []
        var firstLine: [String: ServerRequest] = [:]
        var lines: [String: [SourceLocation]] = [:]
        var revokes: [ServerRequest] = []
        for request in ledger.serverRequests {
            if request.event == .revoke { revokes.append(request); continue }
            if let first = firstLine[request.requestId] {
                firstLine[request.requestId] = first.merged(with: request)
            } else {
                firstLine[request.requestId] = request
                order.append(request.requestId)
            }
            lines[request.requestId, default: []].append(request.location)
        }
        var revokesByTransaction: [String: [ServerRequest]] = [:]
        for revoke in revokes {
            for id in Set(revoke.transactionIds) { revokesByTransaction[id, default: []].append(revoke) }
        }
        self.revokes = revokesByTransaction
        let requests = order.map { id in
            RequestView(
                request: firstLine[id]!, locations: lines[id]!,
                responses: (linked[id] ?? []).sorted {
                    ($0.receivedAtMs ?? Int64.min, $0.location) < ($1.receivedAtMs ?? Int64.min, $1.location)
                })
        }
        self.requests = requests
        requestIndex = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })

        var carriedBy: [String: [Int]] = [:]
        var grants: [String: [Grant]] = [:]
        for (index, view) in requests.enumerated() {
            for id in view.carried { carriedBy[id, default: []].append(index) }
            for id in view.grantSet {
                grants[id, default: []].append(
                    Grant(
                        requestIndex: index, transactionId: id,
                        unprovenReason: Grant.classify(view, transactionId: id, bundleIds: config.bundleIds)))
            }
        }
        self.carriedBy = carriedBy
        self.grants = grants

        var clientReports: [String: [ClientReport]] = [:]
        for report in ledger.clientReports {
            if let id = report.transactionId { clientReports[id, default: []].append(report) }
        }
        self.clientReports = clientReports

        var items: [String: [Listing]] = [:]
        let store = ResponseStore(responses)
        var reversals: [String: [Int64]] = [:]
        for (index, response) in responses.enumerated() {
            for (position, item) in response.items.enumerated() {
                items[item.transactionId, default: []].append(Listing(response: index, index: position, store: store))
            }
            if response.notification?.notificationType == "REFUND_REVERSED", !response.signature.failed {
                for item in response.items {
                    reversals[item.transactionId, default: []].append(response.signedDateMs ?? item.signedDateMs ?? Int64.max)
                }
            }
        }
        self.items = items
        refundReversals = reversals
        billingEvents = BillingEvents(responses: responses)

        var verification: [String: VerificationState] = [:]
        for (id, indexes) in carriedBy {
            let state = VerificationState(carriers: indexes.map { requests[$0] }, asOfMs: asOfMs, graceMs: graceMs)
            if state.isUnresolved { verification[id] = state }
        }
        self.verification = verification
    }

    /// True when T, or another id Apple re-issued for the same purchase, was granted.
    func isGranted(billingEventOf id: String) -> Bool { billingEvents.ids(of: id).contains { grants[$0] != nil } }

    /// True when the client reported T, or another id Apple re-issued for the same purchase.
    func isReported(billingEventOf id: String) -> Bool { billingEvents.ids(of: id).contains { clientReports[$0] != nil } }

    /// T waits for an answer younger than the grace: not yet a dropped order (rule 14).
    func isPending(_ id: String) -> Bool { verification[id]?.isOverdue == false }

    /// Product id of T: Apple's items first, else the client report.
    func productId(_ id: String) -> String? {
        items[id]?.lazy.compactMap(\.item.productId).first ?? clientReports[id]?.lazy.compactMap(\.productId).first
    }

    func originalTransactionId(_ id: String) -> String? {
        items[id]?.lazy.compactMap(\.item.originalTransactionId).first
            ?? clientReports[id]?.lazy.compactMap(\.originalTransactionId).first
    }

    /// A finding about T with product and original id filled in from what is known of T.
    func finding(
        _ kind: FindingKind, _ reason: String, _ id: String, users: [String?] = [], environment: String? = nil,
        firstSeenMs: Int64?, evidence: [SourceLocation], detail: String
    ) -> Finding {
        Finding(
            kind: kind, reason: reason, transactionId: id, originalTransactionId: originalTransactionId(id),
            productId: productId(id), userIds: users.compactMap { $0 }, environment: environment,
            firstSeenMs: firstSeenMs, evidence: evidence, detail: detail)
    }

    /// Evidence and first-seen time of T's client reports and the given requests.
    func trail(_ id: String, requests indexes: [Int]) -> (evidence: [SourceLocation], firstSeenMs: Int64?) {
        let reports = clientReports[id] ?? []
        let views = indexes.map { requests[$0] }
        let evidence = reports.map(\.location) + views.flatMap(\.evidence)
        let times = reports.map(\.tsMs) + views.map(\.firstSeenMs)
        return (evidence, times.min())
    }

    /// Distinct environments of the given requests, joined with `, `; nil when none is known.
    func environments(_ indexes: [Int]) -> String? {
        var seen: [String] = []
        for index in indexes {
            if let environment = requests[index].environment, !seen.contains(environment) { seen.append(environment) }
        }
        return seen.isEmpty ? nil : seen.joined(separator: ", ")
    }
}

/// The Apple records of a reconciliation, shared by every `Listing` (one copy in memory).
final class ResponseStore {
    let responses: [VerifyResponse]
    init(_ responses: [VerifyResponse]) { self.responses = responses }
}

/// One listing of a transaction: item `index` of record `response`, read in place instead of copied
/// (a 1M-transaction month holds millions of listings).
struct Listing {
    let response: Int
    let index: Int
    let store: ResponseStore

    var item: ReceiptItem { store.responses[response].items[index] }
}
