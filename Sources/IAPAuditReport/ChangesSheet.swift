import IAPAuditModel

/// The Changes sheet: what this run changed in the findings' lifecycle against the last recorded run —
/// new, reopened, resolved (when, and by which new records), expired (a grace ran out), still open with another reason — one row a
/// finding, with its status (acknowledged ones stay listed, marked so). The findings still open as they were
/// are counted in the title, not listed: the finding sheets list them (status `open` or `acknowledged`), and
/// listing them here every night made the sheet the whole ledger again. A ledger's first run lists none: all
/// its findings are new, and the finding sheets hold them.
enum ChangesSheet {
    static let header = [
        "event", "finding_id", "status", "kind", "reason", "transaction_id", "first_seen_run", "last_seen_run", "resolved_at (UTC)",
        "resolved_by", "acknowledged_note", "detail",
    ]

    /// Rows listed at most, as on the Rejected sheet: more (a night that lost a log changes as many findings as the
    /// ledger holds) are counted in a note; table `finding_history` and `--json`'s `changes` have them all.
    public static let rowLimit = 100_000

    static func build(_ c: RunChanges) -> ReportSheet {
        let counts = ([LifecycleEvent.new, .stillOpen, .resolved, .reopened] + (c.count(.expired) > 0 ? [.expired] : [])).map {
            "\(c.count($0)) \($0.rawValue)"
        }
        let acknowledged = c.acknowledged.count
        let against = c.previousRun.map { "against run \($0)" } ?? "the ledger's first run: every finding is new"
        let repeated = c.repeated ? " (run again on the same inputs and parameters: nothing recorded)" : ""
        // A ledger's first run changes nothing it could be compared with: every finding is new, and the
        // finding sheets list them all with their finding_id and status (listing them twice doubled the
        // workbook of a one-off audit).
        let first = c.previousRun == nil
        let recorded = first ? 0 : c.changes.reduce(0) { $0 + ($1.isRecorded ? 1 : 0) }
        let listedCount = min(recorded, rowLimit)
        // Made row by row as they are written (a night that lost a log changes as many findings as the ledger holds).
        let rows = ReportRows(count: listedCount) { [changes = c.changes] limit, body in
            var left = min(limit, listedCount)
            for change in changes where change.isRecorded {
                guard left > 0 else { return }
                left -= 1
                try body(row(change))
            }
        }
        let unchanged = first ? 0 : c.changes.count - recorded
        let listed =
            first
            ? " (not listed here: the finding sheets list every finding with its finding_id and status)"
            : unchanged > 0
                ? " (not listed here: \(unchanged) still open as before; the finding sheets list them, status open or acknowledged)"
                : ""
        // No clock time here (table audit_run has it): the same audit gives the same workbook bytes.
        let title =
            "Run \(c.run)\(repeated), \(against): " + counts.joined(separator: ", ")
            + (acknowledged > 0 ? "; \(acknowledged) acknowledged" : "") + listed
            + (c.payable.isEmpty ? "" : "; \(c.payable.count) became payable (ask_apple → credit), listed below")
        var tables = [ReportTable(title: title, header: header, rows: rows, isPrimary: true, wrappedColumn: header.count - 1)]
        if recorded > listedCount {
            tables.append(
                ReportTable(
                    title: "\(recorded - listedCount) more changes not listed here: all \(recorded) are in audit.sqlite (table "
                        + "finding_history, run \(c.run)) and in run --json's changes", header: [], rows: []))
        }
        if !c.payable.isEmpty { tables.append(payableTable(c)) }
        return ReportSheet(name: "Changes", tables: tables)
    }

    static let payableHeader = [
        "finding_id", "transaction_id", "user_id", "product_id", "quantity", "amount", "currency", "because",
    ]

    /// The findings that became payable (`RunChanges.payable`: `ask_apple` at the last run, `credit` now), one row each;
    /// the amount in the currency's unit. Not there when none did.
    static func payableTable(_ c: RunChanges) -> ReportTable {
        let rows: [[ReportCell]] = c.payable.map { p in
            let a = p.action
            return [
                .text(p.findingId), .text(a.transactionId), a.userId.map(ReportCell.text) ?? .empty,
                a.productId.map(ReportCell.text) ?? .empty, a.quantity.map(ReportCell.integer) ?? .empty,
                a.amountMilliunits.flatMap { m in a.currency.map { ReportCell.money(m, currency: $0) } } ?? .empty,
                a.currency.map(ReportCell.text) ?? .empty, .text(a.because),
            ]
        }
        return ReportTable(
            title: "Became payable since run \(c.previousRun.map(String.init) ?? "?") (ask_apple → credit): \(c.payable.count)",
            header: payableHeader, rows: rows, wrappedColumn: payableHeader.count - 1, wrapsToWidths: true)
    }

    static func row(_ change: FindingChange) -> [ReportCell] {
        let s = change.state
        let resolved = change.event.isGone
        return [
            .text(change.event.rawValue), .text(s.id), .text(s.status.rawValue), .text(s.kind), .text(s.reason), .text(s.transactionId),
            .integer(Int64(s.firstSeenRun)), .integer(Int64(s.lastSeenRun)),
            resolved ? s.resolvedAtMs.map(ReportCell.dateTime) ?? .empty : .empty,
            resolved ? .text(s.resolvedEvidence.joined(separator: "; ")) : .empty, s.note.map(ReportCell.text) ?? .empty,
            .text(change.detail),
        ]
    }
}
