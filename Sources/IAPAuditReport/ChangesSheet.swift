import IAPAuditModel

/// The Changes sheet: what this run changed in the findings' lifecycle against the last recorded run —
/// new, reopened, resolved (when, and by which new records), still open — one row a finding, with its status
/// (acknowledged ones stay listed, marked so).
enum ChangesSheet {
    static let header = [
        "event", "finding_id", "status", "kind", "reason", "transaction_id", "first_seen_run", "last_seen_run", "resolved_at (UTC)",
        "resolved_by", "acknowledged_note", "detail",
    ]

    static func build(_ c: RunChanges) -> ReportSheet {
        let counts = [LifecycleEvent.new, .stillOpen, .resolved, .reopened].map { "\(c.count($0)) \($0.rawValue)" }
        let acknowledged = c.acknowledged.count
        let against = c.previousRun.map { "against run \($0)" } ?? "the ledger's first run: every finding is new"
        let repeated = c.repeated ? " (run again on the same inputs and parameters: nothing recorded)" : ""
        // No clock time here (table audit_run has it): the same audit gives the same workbook bytes.
        let title =
            "Run \(c.run)\(repeated), \(against): " + counts.joined(separator: ", ")
            + (acknowledged > 0 ? "; \(acknowledged) acknowledged" : "")
        let rows = ReportRows(c.changes.map(row))
        return ReportSheet(
            name: "Changes",
            tables: [ReportTable(title: title, header: header, rows: rows, isPrimary: true, wrappedColumn: header.count - 1)])
    }

    static func row(_ change: FindingChange) -> [ReportCell] {
        let s = change.state
        let resolved = change.event == .resolved
        return [
            .text(change.event.rawValue), .text(s.id), .text(s.status.rawValue), .text(s.kind), .text(s.reason), .text(s.transactionId),
            .integer(Int64(s.firstSeenRun)), .integer(Int64(s.lastSeenRun)),
            resolved ? s.resolvedAtMs.map(ReportCell.dateTime) ?? .empty : .empty,
            resolved ? .text(s.resolvedEvidence.joined(separator: "; ")) : .empty, s.note.map(ReportCell.text) ?? .empty,
            .text(change.detail),
        ]
    }
}
