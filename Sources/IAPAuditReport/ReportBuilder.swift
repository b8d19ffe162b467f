import IAPAuditModel

/// Builds the spreadsheet report from what the store holds: a Summary sheet, one sheet per
/// problem kind, an Info sheet, Verify Status and Rejected.
public enum ReportBuilder {
    public static let findingHeader = [
        "kind", "reason", "severity", "apple_confirmation", "transaction_id", "original_transaction_id", "product_id", "user_ids",
        "environment", "first_seen (UTC)", "evidence", "detail", "finding_id", "status", "first_seen_run",
        "acknowledged_note", "action", "action_user_id", "action_quantity", "action_amount", "action_currency", "action_because",
        "action_request_ids",
    ]

    /// - Parameter redactor: `--redact`: users as tokens in the findings (`IdRedactor.finding`), rejected lines'
    ///   text not shown and the ids their reasons quote redacted; nil shows them as stored.
    public static func workbook(_ snapshot: AuditSnapshot, redactor: IdRedactor? = nil) -> ReportWorkbook {
        var sheets = [SummarySheet.build(snapshot)]
        if let changes = snapshot.changes { sheets.append(ChangesSheet.build(changes)) }
        let statuses = snapshot.changes?.listingById ?? [:]
        for kind in FindingKind.problems {
            sheets.append(findingSheet(kind.rawValue, snapshot.findings, [kind], statuses, redactor, snapshot.prices))
        }
        sheets.append(findingSheet("info", snapshot.findings, Set(FindingKind.infos), statuses, redactor, snapshot.prices))
        sheets.append(verifyStatusSheet(snapshot))
        sheets.append(appleRecordsSheet(snapshot, redacted: redactor != nil))
        sheets.append(rejectedSheet(snapshot, redacted: redactor != nil))
        return ReportWorkbook(sheets: sheets, createdMs: snapshot.parameters["as_of"].flatMap(Timestamp.parseMs))
    }

    /// At most this many findings are listed on one sheet (a worksheet holds 1,048,576 rows); the rest
    /// are counted in a note: all of them are in audit.sqlite.
    public static let findingRowLimit = 1_000_000

    /// The findings of `kinds`, read from the stream while the sheet is written, each with its stable id
    /// (`FindingIds`: ids of different kinds never collide, so one sheet's reading hands out the store's) and
    /// its lifecycle status and the run that first found it (`statuses`, by id; empty when the run records no
    /// lifecycle): the findings still open from an earlier night are those of an older `first_seen_run`; an
    /// acknowledged one shows the note `iap-audit ack` was given.
    static func findingSheet(
        _ name: String, _ findings: FindingStream, _ kinds: Set<FindingKind>, _ statuses: [String: RunChanges.Listing] = [:],
        _ redactor: IdRedactor? = nil, _ prices: [String: Money] = [:]
    ) -> ReportSheet {
        let total = findings.count(kinds)
        let rows = ReportRows(count: min(total, findingRowLimit)) { limit, body in
            var ids = FindingIds()
            try findings.forEach(kinds, limit: min(limit, findingRowLimit)) {
                let id = ids.id(for: $0)
                let state = statuses[id]
                let shown = redactor?.finding($0) ?? $0
                try body(
                    findingRow(shown) + [
                        .text(id), optional(state?.status.rawValue), state.map { .integer(Int64($0.firstSeenRun)) } ?? .empty,
                        optional(state?.note),
                    ] + actionCells(shown, state, prices))
            }
        }
        var tables = [ReportTable(header: findingHeader, rows: rows, isPrimary: true)]
        if total > findingRowLimit {
            tables.append(
                ReportTable(
                    title: "\(total - findingRowLimit) more findings not listed here: all \(total) are in audit.sqlite (table finding)",
                    header: [], rows: []))
        }
        return ReportSheet(name: name, tables: tables)
    }

    static func findingRow(_ f: Finding) -> [ReportCell] {
        [
            .text(f.kind.rawValue), .text(f.reason), .text(f.severity.rawValue), optional(f.appleConfirmation?.rawValue),
            .text(f.transactionId),
            optional(f.originalTransactionId), optional(f.productId), .text(f.userIds.joined(separator: ", ")),
            optional(f.environment), f.firstSeenMs.map(ReportCell.dateTime) ?? .empty,
            .text(f.evidence.map(\.description).joined(separator: "; ")), .text(f.detail),
        ]
    }

    /// The finding's action (`FindingAction`) as table `finding_action` holds it: `none` once acknowledged; the amount
    /// in the currency's unit.
    static func actionCells(_ f: Finding, _ state: RunChanges.Listing?, _ prices: [String: Money]) -> [ReportCell] {
        let priced = FindingAction.of(f, price: prices[f.transactionId])
        let a = state?.joined(priced) ?? priced
        return [
            .text(a.code.rawValue), optional(a.userId), a.quantity.map(ReportCell.integer) ?? .empty,
            a.amountMilliunits.map { .money($0, currency: a.currency!) } ?? .empty, optional(a.currency), .text(a.because),
            .text(a.requestIds.joined(separator: ", ")),
        ]
    }

    static func verifyStatusSheet(_ snapshot: AuditSnapshot) -> ReportSheet {
        let total = max(1, snapshot.statuses.reduce(0) { $0 + $1.responses })
        let statuses = ReportTable(
            header: ["status", "meaning", "responses", "percent"],
            rows: snapshot.statuses.map {
                [
                    .integer(Int64($0.status)), .text($0.meaning), .integer($0.responses),
                    .number((Double($0.responses) * 10_000 / Double(total)).rounded() / 100),
                ]
            }, isPrimary: true)
        let l = snapshot.latency
        let latency = ReportTable(
            title: "Verify latency of server requests (ms, nearest rank)",
            header: ["requests", "p50", "p90", "p95", "p99", "max"],
            rows: [[.integer(l.requests)] + [l.p50Ms, l.p90Ms, l.p95Ms, l.p99Ms, l.maxMs].map { $0.map(ReportCell.integer) ?? .empty }])
        return ReportSheet(name: "Verify Status", tables: [statuses, latency])
    }

    public static let appleRecordHeader = [
        "file", "line", "source", "signature", "environment", "bundle_id", "notification", "notificationUUID",
        "signedDate (UTC)", "request_id", "status", "transaction_ids", "notes",
    ]

    /// Signed transactions, notifications, Server API pages and receipts, each with its `signature`.
    /// At most this many Apple records are listed on their sheet (a worksheet holds 1,048,576 rows);
    /// the rest are counted in a note: all of them are in audit.sqlite.
    public static let appleRecordRowLimit = 100_000

    static func appleRecordsSheet(_ snapshot: AuditSnapshot, redacted: Bool = false) -> ReportSheet {
        let records = snapshot.appleRecords
        let rows = ReportRows(count: min(records.count, appleRecordRowLimit)) { limit, body in
            try records.forEach(limit: min(limit, appleRecordRowLimit)) { r in
                try body([
                    .text(r.location.file), .integer(Int64(r.location.line)), .text(r.source), .text(r.signature),
                    optional(r.environment), optional(r.bundleId), optional(r.notification), optional(r.notificationUUID),
                    r.signedDateMs.map(ReportCell.dateTime) ?? .empty, optional(r.requestId), .integer(Int64(r.status)),
                    .text(r.transactionIds), .text(r.notes == "[]" ? "" : redacted ? IdRedactor.notes(r.notes) : r.notes),
                ])
            }
        }
        var tables = [ReportTable(header: appleRecordHeader, rows: rows, isPrimary: true)]
        let more = records.count - rows.count
        if more > 0 {
            tables.append(
                ReportTable(
                    title: "\(more) more records not listed here: all \(records.count) are in audit.sqlite "
                        + "(table apple_record, view signature_summary)", header: [], rows: []))
        }
        return ReportSheet(name: "Apple Records", tables: tables)
    }

    /// At most this many rejected records are listed (each with up to 2,000 characters of its text);
    /// the rest are counted in a note: all of them are in audit.sqlite.
    public static let rejectedRowLimit = 100_000

    /// Characters of a rejected line's text shown on the Rejected sheet (a longer one ends in a note).
    public static let rejectedSheetCharacters = 2000

    static func rejectedSheet(_ snapshot: AuditSnapshot, redacted: Bool = false) -> ReportSheet {
        let rejections = snapshot.rejections
        let rows = ReportRows(count: min(rejections.count, rejectedRowLimit)) { limit, body in
            try rejections.forEach(limit: min(limit, rejectedRowLimit)) {
                let text =
                    redacted
                    ? IdRedactor.rawText($0.rawText, at: $0.location)
                    : Rejection.cut(SecretRedaction.shown($0.rawText), to: rejectedSheetCharacters)
                try body([
                    .text($0.location.file), .integer(Int64($0.location.line)), .text(redacted ? IdRedactor.reason($0.reason) : $0.reason),
                    .text(text),
                ])
            }
        }
        var tables = [ReportTable(header: ["file", "line", "reason", "raw_text"], rows: rows, isPrimary: true)]
        if rejections.count > rows.count {
            tables.append(
                ReportTable(
                    title: "\(rejections.count - rows.count) more rejected records not listed here: all \(rejections.count) are in "
                        + "audit.sqlite (table rejection)", header: [], rows: []))
        }
        return ReportSheet(name: "Rejected", tables: tables)
    }

    static func optional(_ text: String?) -> ReportCell { text.map(ReportCell.text) ?? .empty }
}
