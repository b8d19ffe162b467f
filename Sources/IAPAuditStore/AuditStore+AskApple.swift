import IAPAuditModel

/// What `iap-audit ask-apple` asks Apple about, read from a ledger read-only.
extension AuditStore {
    /// The open findings whose action is `ask_apple` and that name a transaction: (finding id, transaction id), by
    /// finding id. Read from table `finding_action` of the ledger at `ledgerPath` on a read-only connection.
    /// - Throws: `AuditError.ledger` as `trace` does (missing, not iap-audit's, another version).
    package static func openAskAppleClaims(ledgerPath: String) throws -> [(findingId: String, transactionId: String)] {
        let db = try TraceReader.open(ledgerPath)
        let q = try db.prepare(
            """
            SELECT finding_id, transaction_id FROM finding_action
            WHERE code = '\(FindingActionCode.askApple.rawValue)' AND status = 'open' AND transaction_id <> ''
            ORDER BY finding_id
            """)
        var claims: [(findingId: String, transactionId: String)] = []
        while try q.step() { claims.append((q.text(0), q.text(1))) }
        return claims
    }
}
