extension RecordBatch {
    /// The batch as a redacted ledger stores it (`--redact-ledger`): every user id, device id and app account
    /// token replaced by its token (`IdRedactor`), each Apple record's own text (`raw_json`) left empty (a
    /// signed payload or receipt in it may carry an app account token that cannot be rewritten: the document
    /// stays at its `file:line`, pinned by `source_file.sha256`, as a JSON Lines record's does), every
    /// rejected line's text and quoted id replaced (`IdRedactor.rawText`, `.reason`). The facts are encoded
    /// again from the redacted rows, so reconciliation joins tokens.
    ///
    /// Runs only under `--redact-ledger`, on the import thread: the readers' hot path does not change.
    package mutating func redactIds(with redactor: IdRedactor) {
        var users: [String: TextRef] = [:]
        var devices: [String: TextRef] = [:]
        func swap(_ ref: TextRef, _ cache: inout [String: TextRef], _ token: (String) -> String) -> TextRef {
            guard let id = arena.string(ref), !id.isEmpty else { return ref }
            if let known = cache[id] { return known }
            let replaced = arena.append(token(id))
            cache[id] = replaced
            return replaced
        }
        for i in clientReports.indices {
            clientReports[i].userId = swap(clientReports[i].userId, &users, redactor.user)
            clientReports[i].deviceId = swap(clientReports[i].deviceId, &devices, redactor.device)
        }
        for i in serverRequests.indices {
            serverRequests[i].userId = swap(serverRequests[i].userId, &users, redactor.user)
            serverRequests[i].deviceId = swap(serverRequests[i].deviceId, &devices, redactor.device)
        }
        for i in appleTransactions.indices {
            appleTransactions[i].appAccountToken = swap(appleTransactions[i].appAccountToken, &users, redactor.user)
        }
        if !appleRecords.isEmpty {
            let empty = arena.append("")
            for i in appleRecords.indices {
                appleRecords[i].rawJSON = empty
                // What could not be read inside it may quote a value (`not a compact JWS ("…")`).
                if let notes = arena.string(appleRecords[i].notes), notes != "[]" {
                    appleRecords[i].notes = arena.append(IdRedactor.notes(notes))
                }
            }
        }
        rejections = rejections.map {
            var r = $0
            r.reason = IdRedactor.reason(r.reason)
            r.rawText = IdRedactor.rawText(r.rawText, at: r.location)
            return r
        }
        encodeFacts()
    }
}
