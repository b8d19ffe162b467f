/// One verification request with Apple's answers to it, as reconciliation sees it
/// (SEMANTICS rules 2–7).
struct RequestView {
    /// The first log line of this `request_id`.
    let request: ServerRequest
    /// Every log line with this `request_id` (the same request logged twice is one request).
    var locations: [SourceLocation]
    /// Linked verify responses, oldest first by (`received_at`, file, line).
    let responses: [VerifyResponse]
    /// Ids the request carried, after resolving posted original ids (rule 6).
    let carried: [String]
    /// What it granted (rule 5): resolved `credited_transaction_ids`, else the carried ids; empty when not granted.
    let grantSet: [String]
    /// `transaction_id`s of the final response's items.
    let finalItemIds: Set<String>

    init(request: ServerRequest, locations: [SourceLocation], responses: [VerifyResponse]) {
        self.request = request
        self.locations = locations
        self.responses = responses
        let items = responses.last?.items ?? []
        let ids = Set(items.map(\.transactionId))
        finalItemIds = ids
        func resolve(_ posted: [String]) -> [String] {
            var seen = Set<String>()
            return posted.map { RequestView.resolve($0, items: items, ids: ids) }.filter { seen.insert($0).inserted }
        }
        carried = resolve(request.transactionIds)
        grantSet = request.granted ? resolve(request.creditedTransactionIds ?? request.transactionIds) : []
    }

    /// Rule 6: X itself when it is a `transaction_id` of the final response; else the newest item
    /// whose `original_transaction_id` is X; else X.
    static func resolve(_ posted: String, items: [ReceiptItem], ids: Set<String>) -> String {
        if ids.contains(posted) { return posted }
        var best: ReceiptItem? = nil
        for item in items where item.originalTransactionId == posted {
            if best == nil || (item.purchaseDateMs ?? Int64.min) >= (best!.purchaseDateMs ?? Int64.min) { best = item }
        }
        return best?.transactionId ?? posted
    }

    var final: VerifyResponse? { responses.last }
    var tsMs: Int64 { request.tsMs }
    var userId: String? { request.userId }

    /// Apple's final status, else the logged one (rule 3: classification only, never proof).
    var status: Int? { final?.status ?? request.verifyStatus }

    /// Apple's word on the environment, else the server log's.
    var environment: String? { final?.effectiveEnvironment ?? request.environment.map(Environment.normalized) }

    /// Apple (or, without a response, the log) gave an answer.
    var isAnswered: Bool { status != nil }

    /// Answered from a non-production environment (`Sandbox`, `Xcode`, `LocalTesting`, or another
    /// value that is not `Production`).
    var isSandboxAnswer: Bool { isAnswered && environment.map { $0 != "Production" } ?? false }

    /// A final response with status 0 that is not from the sandbox.
    var isProductionSuccess: Bool {
        guard let final else { return false }
        return final.status == 0 && !final.isSandbox
    }

    /// Rule 14: why the request is unresolved (`no_verify_response`, `retryable_status`), or nil.
    var unresolvedReason: String? {
        guard let status else { return "no_verify_response" }
        return VerifyStatus.isRetryable(status, isRetryable: final?.isRetryable) ? "retryable_status" : nil
    }

    /// Every record behind this request: its log lines and Apple's answers.
    var evidence: [SourceLocation] { locations + responses.map(\.location) }

    /// When the request was last heard of: its final answer's `received_at`, else its `ts`
    /// (orders requests in time whatever the order of the log lines).
    var latestMs: Int64 { max(request.tsMs, final?.receivedAtMs ?? request.tsMs) }

    /// The earliest timestamp of the request and its answers.
    var firstSeenMs: Int64 { min(request.tsMs, responses.compactMap(\.receivedAtMs).min() ?? request.tsMs) }
}
