/// SEMANTICS rule 14 for one transaction: which requests carrying it are unresolved
/// (no answer, or a retryable status) and not cleared by a later status-0 request.
struct VerificationState {
    /// Uncleared unresolved requests, oldest first, with their reasons.
    let uncleared: [(view: RequestView, reason: String)]
    let asOfMs: Int64
    let graceMs: Int64

    init(carriers: [RequestView], asOfMs: Int64, graceMs: Int64) {
        self.asOfMs = asOfMs
        self.graceMs = graceMs
        // A request is cleared by any later status-0 request: compare with the latest one (linear).
        let lastSuccessMs = carriers.filter { $0.status == 0 }.map(\.tsMs).max() ?? Int64.min
        var uncleared: [(RequestView, String)] = []
        for view in carriers {
            guard let reason = view.unresolvedReason, lastSuccessMs <= view.tsMs else { continue }
            uncleared.append((view, reason))
        }
        self.uncleared = uncleared.sorted { ($0.0.tsMs, $0.0.request.location) < ($1.0.tsMs, $1.0.request.location) }
    }

    var isUnresolved: Bool { !uncleared.isEmpty }

    /// Uncleared requests older than the grace (strictly).
    var overdue: [(view: RequestView, reason: String)] { uncleared.filter { asOfMs - $0.view.tsMs > graceMs } }

    /// True when some uncleared request is older than the grace: a backlog, not a pending one.
    var isOverdue: Bool { !overdue.isEmpty }

    /// The reason reported: that of the newest overdue request, else of the newest uncleared one.
    var reason: String { (overdue.last ?? uncleared.last!).reason }
}
