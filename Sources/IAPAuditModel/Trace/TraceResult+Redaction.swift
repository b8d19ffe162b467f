extension TraceResult {
    /// The trace as `trace --redact` shows it (docs/trace.md, "Redaction"): every user id and device id its
    /// records and findings hold replaced by its token (`IdRedactor.user`, `.device`), before it is judged,
    /// so that the verdict's words (`credited: …`, `next action: credit manually to …`) name tokens too; the
    /// near matches of a user or device kind as tokens; a rejected line's reason as `IdRedactor.reason` shows it
    /// (its raw text is never read into the trace). Transaction, order and request ids stay.
    ///
    /// Not for a ledger made with `--redact-ledger`: it holds tokens already.
    package mutating func redact(with redactor: IdRedactor) {
        let user = { (id: String?) in id.map(redactor.user) }
        let device = { (id: String?) in id.map(redactor.device) }
        func redacted(_ event: TraceEvent) -> TraceEvent {
            var event = event
            switch event.detail {
            case .client(var c):
                (c.userId, c.deviceId) = (user(c.userId), device(c.deviceId))
                event.detail = .client(c)
            case .request(var r):
                (r.userId, r.deviceId) = (user(r.userId), device(r.deviceId))
                event.detail = .request(r)
            case .apple: break
            }
            return event
        }
        for i in transactions.indices {
            transactions[i].events = transactions[i].events.map(redacted)
            transactions[i].findings = transactions[i].findings.map(redactor.finding)
            // The actions made again from the redacted findings (their users and words name tokens), priced as stored.
            let t = transactions[i]
            transactions[i].findingActions = t.findingActions.enumerated().map { j, stored in
                stored.map { stored in
                    var a = FindingAction.of(t.findings[j]).joined(with: j < t.findingStates.count ? t.findingStates[j] : nil)
                    (a.amountMilliunits, a.currency) = (stored.amountMilliunits, stored.currency)
                    return a
                }
            }
            transactions[i].rejectedLines = transactions[i].rejectedLines.map {
                TraceRejectedLine(location: $0.location, reason: IdRedactor.reason($0.reason))
            }
            // The account a person acted on is a user id too; the note is the person's words, kept as written.
            for j in transactions[i].manualActions.indices {
                transactions[i].manualActions[j].userId = transactions[i].manualActions[j].userId.map(redactor.user)
            }
        }
        unattached = unattached.map(redacted)
        rejectedLines = rejectedLines.map { TraceRejectedLine(location: $0.location, reason: IdRedactor.reason($0.reason)) }
        nearMatches = nearMatches.map { near in
            switch near.kind {
            case .userId: return (redactor.user(near.id), near.kind, near.why)
            case .deviceId: return (redactor.device(near.id), near.kind, near.why)
            default: return near
            }
        }
    }

    /// The id as a redacted trace shows it: as asked when it is a token that stands for itself (one of a
    /// `--redact-ledger` ledger, or one the ledger's original id was found for); else its token when it matched
    /// as a user id (even one of a token's form: a real id can look like one), else as a device id; as asked when
    /// it matched as a transaction, order, request or web order line item id (they name no person); and as
    /// `IdRedactor.given` when it matched nothing — it may still be somebody's id in another case or spacing (a near
    /// match), in a rejected line, or an app account token (found by a privacy user test: each was printed in clear,
    /// and named the trace workbook).
    package func shownId(_ redactor: IdRedactor, standsForItself: Bool) -> String {
        if standsForItself { return id }
        if matches.contains(where: { $0.kind == .userId }) { return redactor.user(id) }
        if matches.contains(where: { $0.kind == .deviceId }) { return redactor.device(id) }
        // A token that matched nothing names nobody of this ledger: as asked.
        return matches.isEmpty && !IdRedactor.isToken(id) ? redactor.given(id) : id
    }
}
