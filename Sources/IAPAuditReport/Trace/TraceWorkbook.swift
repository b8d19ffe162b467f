import IAPAuditModel

/// `trace-<id>.xlsx` (`trace --format xlsx`): Trace (the id, what it matched, the ledger), Verdicts (one
/// row per transaction), Timeline (every record, by transaction then time) and Findings.
package enum TraceWorkbook {
    package static func build(_ r: TraceResult) -> ReportWorkbook {
        var about: [[ReportCell]] = [
            [.text("id"), .text(r.id)], [.text("ledger"), .text(r.ledgerPath)],
            [.text("as of"), r.asOfMs.map(ReportCell.dateTime) ?? .empty], [.text("transactions"), .integer(Int64(r.transactions.count))],
        ]
        about += (r.redaction.map { [[.text("redaction"), .text($0)]] } ?? []) + r.notes.map { [.text("note"), .text($0)] }
        about += r.matches.map { [.text("matched as \($0.kind.label)"), .text($0.columns.joined(separator: ", "))] }
        if r.matches.isEmpty {
            about += TraceIdKind.allCases.map { [.text("searched \($0.label)"), .text($0.columns.joined(separator: ", "))] }
            about += r.nearMatches.map { [.text("near match"), .text("\($0.id) (\($0.kind.label): \($0.why))")] }
            about += r.rejectedLines.map { [.text("rejected line"), .text("\($0.location) (\($0.reason))")] }
        }
        about += r.nextAction.map { [[.text("next action"), .text($0.text)]] } ?? []
        let verdicts = r.transactions.map(verdictRow)
        var timeline: [[ReportCell]] = []
        for t in r.transactions {
            timeline += t.events.map { row(t.transactionId, $0) }
            // What people recorded (`iap-audit resolve`), after its records: the same rows as the text's "by hand" block.
            timeline += t.manualActions.map { a in
                [
                    .text(t.transactionId), .dateTime(a.atMs), .text("manual_action"), .text("manual action #\(a.actionId)"),
                    .text(a.words), a.kind == .credited ? a.quantity.map { ReportCell.integer($0) } ?? .empty : .empty,
                ]
            }
        }
        timeline += r.unattached.map { row("", $0) }
        var findings: [[ReportCell]] = []
        for t in r.transactions {
            findings += t.findings.map { f in
                let state = t.state(of: f)
                return [
                    .text(f.transactionId), .text(f.kind.rawValue), .text(f.reason), .text(f.severity.rawValue),
                    .text(f.appleConfirmation?.rawValue ?? ""), f.firstSeenMs.map(ReportCell.dateTime) ?? .empty,
                    f.lossAtMs.map(ReportCell.dateTime) ?? .empty, .text(f.userIds.joined(separator: ", ")), .text(f.detail),
                    .text(f.evidence.map(\.description).joined(separator: ", ")), .text(state?.id ?? ""),
                    .text(state.map(TraceWording.state) ?? ""),
                ]
            }
            findings += t.resolvedFindings.map { s in
                [
                    .text(s.transactionId), .text(s.kind), .text(s.reason), .empty, .empty, .empty, .empty, .empty, .empty, .empty,
                    .text(s.id),
                    .text(TraceWording.state(s)),
                ]
            }
        }
        return ReportWorkbook(
            sheets: [
                ReportSheet(name: "Trace", tables: [ReportTable(title: "Trace", header: ["", ""], rows: about)]),
                ReportSheet(
                    name: "Verdicts",
                    tables: [
                        ReportTable(
                            header: [
                                "transaction_id", "original_transaction_id", "product_id", "purchased (UTC)", "price", "currency",
                                "findings", "apple", "apple record", "credited to", "revoked", "refunded (UTC)", "action", "next action",
                            ], rows: verdicts, isPrimary: true, wrappedColumn: 13)
                    ]),
                ReportSheet(
                    name: "Timeline",
                    tables: [
                        ReportTable(
                            header: ["transaction_id", "time (UTC)", "source", "file:line", "what it says", "quantity credited"],
                            rows: timeline,
                            isPrimary: true,
                            wrappedColumn: 4)
                    ]),
                ReportSheet(
                    name: "Findings",
                    tables: [
                        ReportTable(
                            header: [
                                "transaction_id", "kind", "reason", "severity", "apple_confirmation", "first_seen (UTC)", "loss at (UTC)",
                                "user_ids", "detail", "evidence", "finding_id", "status",
                            ],
                            rows: findings, isPrimary: true, wrappedColumn: 8)
                    ]),
            ], createdMs: r.asOfMs)
    }

    /// A Verdicts row: the transaction, its product, purchase date, Apple's verified price and currency, then its verdict.
    private static func verdictRow(_ t: TransactionTrace) -> [ReportCell] {
        let v = t.verdict
        let price = t.verifiedPrice
        return [
            .text(t.transactionId), .text(t.originalTransactionId ?? ""), .text(t.productId ?? ""),
            t.purchaseMs.map(ReportCell.dateTime) ?? .empty,
            price.map { ReportCell.money($0.milliunits, currency: $0.currency) } ?? .empty,
            .text(price?.currency ?? ""),
            .text(t.findings.map { "\($0.kind.rawValue)/\($0.reason)" }.joined(separator: ", ")), .text(v?.apple.code ?? ""),
            .text(v?.apple.record?.description ?? ""),
            .text(v.map(credited) ?? ""), .text(v.map(revoked) ?? ""),
            v?.refund.map { ReportCell.dateTime($0.atMs) } ?? .empty, .text(v?.action.rawValue ?? ""), .text(v?.nextAction ?? ""),
        ]
    }

    private static func row(_ transactionId: String, _ e: TraceEvent) -> [ReportCell] {
        [
            .text(transactionId), e.timeMs.map(ReportCell.dateTime) ?? .empty, .text(e.source), .text(e.location.description),
            .text(TraceWording.says(e)), quantityCredited(e).map { ReportCell.integer(Int64($0)) } ?? .empty,
        ]
    }

    /// The units a request credited of the transaction (`TraceRequest.creditedQuantity`); nil for any other record.
    private static func quantityCredited(_ e: TraceEvent) -> Int? {
        guard case .request(let r) = e.detail, r.creditsTransaction else { return nil }
        return r.creditedQuantity
    }

    /// "revoked": the revokes that took it back, as the text's `revoked:` line says them (found by a support user test: a
    /// credit revoked since read as held on this sheet).
    static func revoked(_ v: TraceVerdict) -> String {
        v.revokes.map { r in "\(r.userId ?? "everyone") by \(r.requestId)" + (r.timeMs.map { " (\(Timestamp.iso($0)))" } ?? "") }
            .joined(separator: "; ")
    }

    /// "credited to": the users credited, as the text's `credited:` line says it (nobody: none was).
    static func credited(_ v: TraceVerdict) -> String {
        guard !v.credits.isEmpty else { return "nobody" }
        let users = ExactText.distinctSorted(v.credits.compactMap(\.userId))
        return users.isEmpty ? "a grant naming no user" : users.joined(separator: ", ")
    }

}
