import Foundation
import IAPAuditModel

/// What `trace` prints: one timeline per transaction (time UTC, source, file:line, what it says) and
/// its verdict, as text for people (control characters of stored text escaped: `String.controlCharactersEscaped`)
/// or one JSON object (`--format json`).
package enum TraceOutput {
    package static func text(_ r: TraceResult, workbookPath: String? = nil) -> String {
        var lines = [heading(r), "ledger \(r.ledgerPath)" + (r.asOfMs.map { ", as of \(Timestamp.iso($0))" } ?? "") + runStatus(r)]
        lines += r.notes
        lines += actionSummary(r)
        if r.matches.isEmpty {
            lines.append("searched:")
            lines += TraceIdKind.allCases.map { "  \($0.label): \($0.columns.joined(separator: ", "))" }
            lines.append(
                r.nearMatches.isEmpty
                    ? "no near match (another case, white space around it, or one or two characters off at its end)"
                    : "near matches: " + r.nearMatches.map { "\($0.id) (\($0.kind.label): \($0.why))" }.joined(separator: "; "))
            lines += rejected(r)
        }
        for t in r.transactions {
            lines.append("")
            lines.append(
                "== transaction \(t.transactionId)"
                    + [
                        [t.originalTransactionId.map { "original \($0)" }, t.productId, t.purchaseMs.map { "bought \(Timestamp.iso($0))" }]
                            .compactMap { $0 }.joined(separator: ", ")
                    ]
                    .filter { !$0.isEmpty }.map { " (\($0))" }.joined())
            lines += table(t.events)
            lines += verdict(t)
        }
        if !r.unattached.isEmpty {
            lines.append("")
            lines.append("== records of \(shown(r.id)) naming no transaction")
            lines += table(r.unattached)
        }
        if let action = r.nextAction { lines.append("next action: \(action.text)") }
        if let workbookPath { lines += ["", "Wrote \(workbookPath)"] }
        // Each line one line: a stored text's line break (an ack note, an id, a file name) escaped where it stands,
        // so it cannot forge a line of its own (a "next action:"), as an escape sequence cannot reach the terminal.
        return lines.map(\.controlCharactersEscaped).joined(separator: "\n")
    }

    /// For an id of several transactions (a user's, a device's), the next actions counted up front with the
    /// transactions that need one, so that a support engineer sees them before 2,000 timelines: `actions: credit manually
    /// 2 (2000000400595168, 2000000400599128), no action 1`. Nothing for one transaction.
    static func actionSummary(_ r: TraceResult) -> [String] {
        let judged = r.transactions.compactMap { t in t.verdict.map { (t.transactionId, $0.action) } }
        guard judged.count > 1 else { return [] }
        let parts = TraceAction.allCases.compactMap { action -> String? in
            let ids = judged.filter { $0.1 == action }.map(\.0)
            guard !ids.isEmpty else { return nil }
            let label = action.rawValue.replacingOccurrences(of: "_", with: " ")
            guard action != .noAction else { return "\(label) \(CountText.grouped(Int64(ids.count)))" }
            let named =
                ids.prefix(actionIdsNamed).joined(separator: ", ")
                + (ids.count > actionIdsNamed ? " … and \(CountText.grouped(Int64(ids.count - actionIdsNamed))) more" : "")
            return "\(label) \(CountText.grouped(Int64(ids.count))) (\(named))"
        }
        return ["actions: " + parts.joined(separator: ", ")]
    }

    /// Characters of the id asked shown, at most.
    static let shownCharacters = 200

    /// Transactions an action of `actionSummary` names, at most.
    static let actionIdsNamed = 10

    private static func heading(_ r: TraceResult) -> String {
        let id = shown(r.id)
        guard !r.matches.isEmpty else { return "trace \(id): no record in the ledger holds this id" }
        let kinds = r.matches.map { "\($0.kind.label) (\($0.columns.joined(separator: ", ")))" }.joined(separator: "; ")
        let count = r.transactions.count
        return "trace \(id): \(kinds); \(count) transaction\(count == 1 ? "" : "s")"
    }

    /// The id as asked, in double quotes when it holds white space (a pasted id's trailing space shows); one
    /// longer than `shownCharacters` (a whole pasted email) cut, with its length.
    static func shown(_ id: String) -> String {
        let count = id.count
        guard count <= shownCharacters else { return shown(String(id.prefix(shownCharacters))) + "… (\(count) characters)" }
        guard id.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) || $0.value < 0x20 || $0.value == 0x7F })
        else { return id }
        // Control characters escaped (a pasted line break shows as \n, as a tab shows as \t), never printed raw.
        return "\"" + id.controlCharactersEscaped + "\""
    }

    /// The rejected lines holding an unknown id: `found in 1 rejected line: file:line (reason)`, or one a line.
    private static func rejected(_ r: TraceResult) -> [String] {
        let shown = r.rejectedLines.map { "\($0.location) (\($0.reason))" }
        switch (shown.count, r.moreRejectedLines) {
        case (0, _): return []
        case (1, false): return ["found in 1 rejected line: " + shown[0]]
        case (let n, let more):
            return [more ? "found in more than \(n) rejected lines (the first \(n)):" : "found in \(n) rejected lines:"]
                + shown.map { "  " + $0 }
        }
    }

    private static func runStatus(_ r: TraceResult) -> String {
        guard let status = r.runParameters["run_status"], status != "complete" else { return "" }
        return " (the last run is \(status): the ledger may lack its findings)"
    }

    /// The timeline as aligned columns.
    private static func table(_ events: [TraceEvent]) -> [String] {
        let rows = events.map { [$0.timeMs.map(Timestamp.iso) ?? "—", $0.source, $0.location.description, TraceWording.says($0)] }
        let header = ["time (UTC)", "source", "file:line", "what it says"]
        let widths = (0..<3).map { c in (rows.map { $0[c].count } + [header[c].count]).max()! }
        return ([header] + rows).map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[3]
        }
    }

    private static func verdict(_ t: TransactionTrace) -> [String] {
        var lines = ["findings:" + (t.findings.isEmpty ? " none" : "")]
        for f in t.findings {
            let confirmation = f.appleConfirmation.map { ", apple_confirmation \($0.rawValue)" } ?? ""
            let elsewhere = f.transactionId.utf8.elementsEqual(t.transactionId.utf8) ? "" : " on \(f.transactionId), the same purchase"
            lines.append("  \(f.kind.rawValue)/\(f.reason)\(elsewhere) (\(f.severity.rawValue)\(confirmation)): \(f.detail)")
            if let state = t.state(of: f) { lines.append("    \(state.id): \(TraceWording.state(state))") }
        }
        if !t.resolvedFindings.isEmpty {
            lines.append("resolved findings:")
            lines += t.resolvedFindings.map { "  \($0.kind)/\($0.reason) (\($0.id)): \(TraceWording.state($0))" }
        }
        if !t.manualActions.isEmpty {
            lines.append("by hand (iap-audit resolve):")
            lines += t.manualActions.map { "  " + $0.named }
        }
        guard let v = t.verdict else { return lines }
        lines.append("Apple: " + appleWord(v.apple))
        let credits =
            v.credits.map { "\($0.userId ?? "?") by \($0.requestId) (\($0.location))" }
            + t.manualActions.filter { $0.kind == .credited }.map { "\($0.userId ?? "?") by hand (manual action #\($0.actionId))" }
        lines.append("credited: " + (credits.isEmpty ? "nobody" : credits.joined(separator: "; ")))
        if !v.revokes.isEmpty {
            lines.append(
                "revoked: " + v.revokes.map { "\($0.userId ?? "everyone") by \($0.requestId) (\($0.location))" }.joined(separator: "; "))
        }
        if let refund = v.refund {
            lines.append("refunded: \(Timestamp.iso(refund.atMs))\(refund.revocationType.map { " (\($0))" } ?? "") (\(refund.location))")
        }
        if let reversed = v.refundReversed {
            lines.append(
                "refund reversed: Apple took back its refund of \(Timestamp.iso(reversed.atMs)) (REFUND_REVERSED, \(reversed.location))")
        }
        if !t.rejectedLines.isEmpty {
            lines.append(
                "rejected lines naming it (not read by the run): "
                    + t.rejectedLines.map { "\($0.location) (\($0.reason))" }.joined(separator: "; "))
        }
        lines.append("next action: \(v.nextAction)")
        return lines
    }

    private static func appleWord(_ word: TraceVerdict.AppleWord) -> String {
        switch word {
        case .confirmed(let l): return "confirms the payment (\(l))"
        case .refunded(let l): return "confirms the payment, and refunded it (\(l))"
        case .notConfirmed(let why): return "does not confirm the payment: \(why)"
        }
    }

    // MARK: JSON

    package static func json(_ r: TraceResult, workbookPath: String? = nil) -> String {
        let null = NSNull() as Any
        var object: [String: Any] = [
            "id": r.id, "found": !r.matches.isEmpty, "ledger": r.ledgerPath,
            "as_of": r.asOfMs.map(Timestamp.iso) ?? null, "run_status": r.runParameters["run_status"] ?? null,
            "matched_as": r.matches.map { ["kind": $0.kind.rawValue, "label": $0.kind.label, "columns": $0.columns] as [String: Any] },
            "transactions": r.transactions.map(transaction), "unattached": r.unattached.map(event),
            "searched": Dictionary(uniqueKeysWithValues: TraceIdKind.allCases.map { ($0.rawValue, $0.columns) }),
            "near_matches": r.nearMatches.map { ["id": $0.id, "kind": $0.kind.rawValue, "why": $0.why] },
            "redaction": r.redaction ?? null, "notes": r.notes,
            "rejected_lines": r.rejectedLines.map { ["location": $0.location.description, "reason": $0.reason] },
            "more_rejected_lines": r.moreRejectedLines,
            "next_action": r.nextAction.map { ["code": $0.code.rawValue, "text": $0.text] } ?? null,
            "action": r.nextAction.map { ["code": $0.code.code.rawValue, "because": $0.text] as [String: Any] } ?? null,
        ]
        if let workbookPath { object["xlsx"] = workbookPath }
        return JSONText.encode(object)
    }

    private static func transaction(_ t: TransactionTrace) -> [String: Any] {
        let null = NSNull() as Any
        var object: [String: Any] = [
            "transaction_id": t.transactionId, "original_transaction_id": t.originalTransactionId ?? null,
            "product_id": t.productId ?? null, "purchase_date": t.purchaseMs.map(Timestamp.iso) ?? null, "timeline": t.events.map(event),
            "findings": t.findings.map { f in
                let state = t.state(of: f)
                return [
                    "kind": f.kind.rawValue, "reason": f.reason, "severity": f.severity.rawValue, "transaction_id": f.transactionId,
                    "apple_confirmation": f.appleConfirmation?.rawValue ?? null, "user_ids": f.userIds, "detail": f.detail,
                    "evidence": f.evidence.map(\.description), "first_seen": f.firstSeenMs.map(Timestamp.iso) ?? null,
                    "loss_at": f.lossAtMs.map(Timestamp.iso) ?? null,
                    "finding_id": state?.id ?? null, "status": state?.status.rawValue ?? null,
                    "first_seen_run": state?.firstSeenRun ?? null,
                    "acknowledged_at": state?.acknowledgedAtMs.map(Timestamp.iso) ?? null, "note": state?.note ?? null,
                    "acknowledged_by": state?.acknowledgedBy ?? null, "facts": f.facts.jsonObject,
                    "action": t.action(of: f)?.jsonObject ?? null,
                ] as [String: Any]
            },
            "rejected_lines": t.rejectedLines.map { ["location": $0.location.description, "reason": $0.reason] },
            "manual_actions": t.manualActions.map { a in
                [
                    "action_id": a.actionId, "action": a.kind.rawValue, "quantity": a.quantity ?? null, "user_id": a.userId ?? null,
                    "by": a.by, "note": a.note, "at": Timestamp.iso(a.atMs), "at_ms": a.atMs,
                ] as [String: Any]
            },
            "resolved_findings": t.resolvedFindings.map { s in
                [
                    "finding_id": s.id, "kind": s.kind, "reason": s.reason, "resolved_run": s.resolvedRun ?? null,
                    "resolved_at": s.resolvedAtMs.map(Timestamp.iso) ?? null, "resolved_evidence": s.resolvedEvidence,
                ] as [String: Any]
            },
        ]
        if let v = t.verdict {
            let credit = { (c: TraceCredit) -> [String: Any] in
                [
                    "user_id": c.userId ?? null, "request_id": c.requestId, "time": c.timeMs.map(Timestamp.iso) ?? null,
                    "location": c.location.description, "quantity": c.quantity ?? null, "quantity_source": c.quantitySource ?? null,
                ]
            }
            var why: Any = null
            if case .notConfirmed(let text) = v.apple { why = text }
            object["verdict"] =
                [
                    "apple": ["confirmation": v.apple.code, "record": v.apple.record?.description ?? null, "why_not": why] as [String: Any],
                    "credits": v.credits.map(credit), "revokes": v.revokes.map(credit),
                    "refund": v.refund.map {
                        ["at": Timestamp.iso($0.atMs), "location": $0.location.description, "revocation_type": $0.revocationType ?? null]
                            as [String: Any]
                    } ?? null,
                    "refund_reversed": v.refundReversed.map {
                        ["refunded_at": Timestamp.iso($0.atMs), "location": $0.location.description] as [String: Any]
                    } ?? null,
                    "next_action": ["code": v.action.rawValue, "text": v.nextAction],
                    "action": v.findingAction.jsonObject, "delivered": v.delivered.map(TraceWording.delivered),
                ] as [String: Any]
        }
        return object
    }

    private static func event(_ e: TraceEvent) -> [String: Any] {
        let null = NSNull() as Any
        var object: [String: Any] = [
            "time": e.timeMs.map(Timestamp.iso) ?? null, "source": e.source, "location": e.location.description,
            "says": TraceWording.says(e), "unproven": e.unproven ?? null, "trust_level": e.level?.text ?? null,
        ]
        switch e.detail {
        case .client(let c):
            object["client"] = [
                "user_id": c.userId ?? null, "device_id": c.deviceId ?? null, "transaction_id": c.transactionId ?? null,
                "product_id": c.productId ?? null, "state": c.state, "error_code": c.errorCode ?? null, "quantity": c.quantity ?? null,
            ]
        case .request(let r):
            object["request"] = [
                "request_id": r.requestId, "event": r.event, "user_id": r.userId ?? null, "device_id": r.deviceId ?? null,
                "transaction_ids": r.postedIds, "credited_transaction_ids": r.creditedIds ?? null, "granted": r.granted,
                "restore": r.restore, "logged_status": r.loggedStatus ?? null, "environment": r.environment ?? null,
                "latency_ms": r.latencyMs ?? null, "relation": r.relation.rawValue, "stands_for": r.standsFor ?? null,
                "credits_transaction": r.creditsTransaction, "credited_quantity": r.creditedQuantity ?? null,
                "quantity_source": r.quantitySource ?? null,
            ]
        case .apple(let a):
            object["apple"] = apple(a)
        }
        return object
    }

    /// What the record's status means: verifyReceipt's, or a Look Up Order ID answer's own (1: Apple does not know
    /// the order id).
    private static func statusMeaning(_ a: TraceAppleRecord) -> String {
        guard a.orderId != nil else { return VerifyStatus.meaning(a.status) }
        switch a.orderStatus {
        case nil: return "Look Up Order ID: the order's signed transactions"
        case 1: return "Look Up Order ID: invalid order id"
        case let status?: return "Look Up Order ID: status \(status)"
        }
    }

    private static func apple(_ a: TraceAppleRecord) -> [String: Any] {
        let null = NSNull() as Any
        var object: [String: Any] = [
            "request_id": a.requestId ?? null, "order_id": a.orderId ?? null, "status": a.status,
            "status_meaning": statusMeaning(a), "environment": a.environment ?? null, "signature": a.signature,
            "notification_type": a.notificationType ?? null, "lists_transaction": a.listing != nil,
            "order_status": a.orderStatus ?? null,
        ]
        if let l = a.listing {
            object["listing"] =
                [
                    "original_transaction_id": l.originalTransactionId ?? null, "product_id": l.productId ?? null,
                    "web_order_line_item_id": l.webOrderLineItemId ?? null, "quantity": l.quantity ?? null,
                    "purchase_date": l.purchaseMs.map(Timestamp.iso) ?? null, "expires_date": l.expiresMs.map(Timestamp.iso) ?? null,
                    "refunded": l.cancellationMs.map(Timestamp.iso) ?? null, "revocation_type": l.revocationType ?? null,
                    "revocation_percentage": l.revocationPercentage ?? null, "price_milliunits": l.price?.milliunits ?? null,
                    "currency": l.price?.currency ?? null, "environment": l.environment ?? null, "sections": l.sections,
                    "signature": l.signature, "proves_payment": l.evidence.provesPayment(),
                ] as [String: Any]
        }
        return object
    }
}
