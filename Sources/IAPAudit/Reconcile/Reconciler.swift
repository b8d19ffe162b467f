/// Runs every reconciliation rule over the ledger.
public enum Reconciler {
    /// The rules, one unit each (SEMANTICS.md rules 8–14).
    static let rules: [@Sendable (ReconcileContext) -> [Finding]] = [
        DroppedOrderRule.findings, InReceiptNeverCreditedRule.findings, DuplicateCreditRule.findings,
        SandboxLeakRule.findings, RefundStillGrantedRule.findings, InvalidCreditRule.findings,
        VerificationBacklogRule.findings, IdReissuedRule.findings,
    ]

    /// - Parameters:
    ///   - asOfMs: the audit instant, ms since 1970 UTC; nil = the newest record timestamp (rule 15).
    ///   - graceMs: how long an unanswered request may wait before it is a backlog (default 24 h).
    /// - Returns: findings sorted by kind, reason, transaction id; and the as-of used (nil when the
    ///   input has no timestamped record and none was given).
    public static func run(_ ledger: Ledger, config: AuditConfig, asOfMs: Int64?, graceMs: Int64) -> (findings: [Finding], asOfMs: Int64?) {
        let asOf = asOfMs ?? newestTimestamp(ledger)
        // Without any timestamped record there is no request to age: any instant will do.
        let context = ReconcileContext(ledger: ledger, config: config, asOfMs: asOf ?? 0, graceMs: graceMs)
        let findings = rules.flatMap { $0(context) }.sorted {
            ($0.kind, $0.reason, $0.transactionId, $0.userIds.joined(separator: ",")) < (
                $1.kind, $1.reason, $1.transactionId, $1.userIds.joined(separator: ",")
            )
        }
        return (findings, asOf)
    }

    /// Rule 15: the newest client `ts`, server `ts` or verify `received_at` (never dates inside receipts).
    public static func newestTimestamp(_ ledger: Ledger) -> Int64? { newestRecord(ledger)?.ms }

    /// The record that sets the default as-of, and its timestamp.
    public static func newestRecord(_ ledger: Ledger) -> (ms: Int64, location: SourceLocation)? {
        let candidates: [(Int64, SourceLocation)?] = [
            ledger.clientReports.max { $0.tsMs < $1.tsMs }.map { ($0.tsMs, $0.location) },
            ledger.serverRequests.max { $0.tsMs < $1.tsMs }.map { ($0.tsMs, $0.location) },
            ledger.verifyResponses.filter { $0.receivedAtMs != nil }.max { $0.receivedAtMs! < $1.receivedAtMs! }
                .map { ($0.receivedAtMs!, $0.location) },
        ]
        return candidates.compactMap { $0 }.max { $0.0 < $1.0 }.map { (ms: $0.0, location: $0.1) }
    }
}
