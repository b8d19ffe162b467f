import IAPAuditModel

/// People's actions (`iap-audit resolve`, table `manual_action`): recorded once, never changed; read by every run
/// (docs/semantics.md rule 25) and every trace.
extension AuditStore {
    /// Records `action` and returns it with its number. The table only grows (its triggers refuse an update or delete).
    package func record(_ action: ManualAction) throws -> ManualAction {
        try database.transaction {
            try database.prepare(
                """
                INSERT INTO manual_action (transaction_id, action, quantity, user_id, by, note, at, at_ms, recorded_at, recorded_at_ms)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """
            ).run([
                action.transactionId, action.kind.rawValue, action.quantity, action.userId, action.by, action.note,
                Timestamp.iso(action.atMs), action.atMs, Timestamp.iso(action.recordedAtMs), action.recordedAtMs,
            ])
            var recorded = action
            recorded.actionId = try database.scalar("SELECT last_insert_rowid()")
            return recorded
        }
    }

    /// Every manual action, oldest first (`transactionId` given: those about it).
    package func manualActions(about transactionId: String? = nil) throws -> [ManualAction] {
        try Self.manualActions(database, about: transactionId)
    }

    /// The columns `manualAction(_:)` reads, in order.
    static let manualActionColumns = "action_id, transaction_id, action, quantity, user_id, by, note, at_ms, recorded_at_ms"

    static func manualActions(_ database: SQLiteDatabase, about transactionId: String?) throws -> [ManualAction] {
        let q = try database.prepare(
            "SELECT \(manualActionColumns) FROM manual_action"
                + (transactionId == nil ? "" : " WHERE transaction_id = ?1") + " ORDER BY action_id")
        if let transactionId { q.bind([transactionId]) }
        var actions: [ManualAction] = []
        while try q.step() {
            // A kind this version does not know (the CHECK keeps them out) is damage: said, never guessed.
            guard let kind = ManualAction.Kind(rawValue: q.text(2)) else {
                throw LedgerDamage(
                    table: "manual_action", row: q.int64(0), fileId: 0, path: "", why: "has no known action ('\(q.text(2).prefix(40))')")
            }
            actions.append(
                ManualAction(
                    actionId: q.int64(0), transactionId: q.text(1), kind: kind, quantity: q.optionalInt64(3), userId: q.optionalText(4),
                    by: q.text(5), note: q.text(6), atMs: q.int64(7), recordedAtMs: q.int64(8)))
        }
        return actions
    }

    /// The users the ledger ties transaction `id` to (client reports, the last run's findings); nil when no client report,
    /// Apple listing or finding names the id at all.
    package func transactionUsers(_ id: String) throws -> Set<String>? {
        var users = Set<String>()
        var known = false
        let reports = try database.prepare("SELECT user_id FROM client_report WHERE transaction_id = ?1")
        reports.bind([id])
        while try reports.step() {
            known = true
            if let user = reports.optionalText(0) { users.insert(user) }
        }
        let findings = try database.prepare("SELECT value FROM finding, json_each(finding.user_ids) WHERE transaction_id = ?1")
        findings.bind([id])
        while try findings.step() {
            known = true
            users.insert(findings.text(0))
        }
        for table in ["apple_transaction", "finding"] where !known {
            let listed = try database.prepare("SELECT 1 FROM \(table) WHERE transaction_id = ?1 LIMIT 1")
            listed.bind([id])
            known = try listed.step()
        }
        return known ? users : nil
    }

    /// The ids of the findings on transaction `id` not resolved (open or acknowledged), by id.
    package func unresolvedFindingIds(of id: String) throws -> [String] {
        let q = try database.prepare(
            "SELECT finding_id FROM finding_state WHERE transaction_id = ?1 AND status NOT IN ('resolved', 'expired') ORDER BY finding_id")
        q.bind([id])
        var ids: [String] = []
        while try q.step() { ids.append(q.text(0)) }
        return ids
    }

    /// The action codes the last run's findings on transaction `id` called for (`finding_action`, before any lifecycle).
    package func actionCodes(of id: String) throws -> Set<String> {
        let q = try database.prepare("SELECT coalesce(open_code, code) FROM finding_action WHERE transaction_id = ?1")
        q.bind([id])
        var codes = Set<String>()
        while try q.step() { codes.insert(q.text(0)) }
        return codes
    }
}
