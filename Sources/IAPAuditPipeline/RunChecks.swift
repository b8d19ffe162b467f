import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// The warnings of a run (`RunWarning`): conditions that do not stop it but make its result doubtful,
/// shown in every output (stderr, `--json`, table `run_warning`, the Summary sheet).
enum RunChecks {
    static func beforeImport(_ store: AuditStore, _ options: AuditOptions, databasePath: String) throws -> [RunWarning] {
        var warnings: [RunWarning] = []
        if try store.runParameter("run_status") == "incomplete" {
            warnings.append(
                RunWarning(
                    .previousRunIncomplete, "the previous run into \(options.outputDirectory) did not complete; this run completes it",
                    file: databasePath))
        }
        if let change = store.schemaChange { warnings.append(try upgraded(change, store, databasePath: databasePath)) }
        let c = options.config
        if c.products.isEmpty && c.bundleIds.isEmpty && c.sandboxAllowlist.isEmpty {
            warnings.append(
                RunWarning(
                    .noConfig,
                    "no products, bundle_ids or sandbox_allowlist configured (--config): product types are unknown "
                        + "(a second grant counts as a consumable's same_user duplicate), bundle ids are not checked, "
                        + "and no user is on the sandbox allowlist"))
        }
        return warnings
    }

    /// A ledger made by another version of iap-audit, as this run opened it (`ledger_upgraded`, docs/operations.md,
    /// "Upgrading iap-audit"): found by a user test, the upgrade was silent, and the periods closed before kept their
    /// losses booked the old way.
    static func upgraded(_ change: SchemaChange, _ store: AuditStore, databasePath: String) throws -> RunWarning {
        switch change {
        case .migrated(let version):
            let closed = try store.periodsToCloseAgain()
            let periods =
                closed.isEmpty
                ? ""
                : "; the periods closed before (\(closed.joined(separator: ", "))) booked each loss when its finding was first "
                    + "seen: close them again to book it when it happened (a figure that moves is said, close_restated)"
            return RunWarning(
                .ledgerUpgraded,
                "the ledger (schema version \(version)) was migrated to version \(Schema.version) in place, every record kept: "
                    + [
                        version < 8 ? "the findings now give loss_at, when each loss happened" : nil,
                        version < 9 ? "its stored facts now carry checksums, checked as they are read" : nil,
                        version < 10 ? "the findings now carry their facts and actions (finding_action)" : nil,
                        version < 11
                            ? "it now keeps people's actions (iap-audit resolve) and Apple's answers by id (iap-audit ask-apple)" : nil,
                        "its lifecycle now records a finding whose grace ran out as expired, not resolved",
                    ].compactMap { $0 }.joined(separator: "; ") + periods, file: databasePath)
        case .rebuilt(let version):
            return RunWarning(
                .ledgerUpgraded,
                "the ledger (schema version \(version), made by another version of iap-audit) was rebuilt for version "
                    + "\(Schema.version): its records were dropped (its runs and findings' history kept) and every file given is "
                    + "read again; the records of files no longer given are lost", file: databasePath)
        }
    }

    /// Files of at least `userCoverageMinimum` client reports or server-log records that this run brought (`newFiles`:
    /// file id → path) and none of whose records names a user: an export that renamed `user_id` (to `userId`) or
    /// dropped it is read without error, and every finding on its records names nobody (`user_id_missing`).
    /// A grown log (`read`: what this run read of each file) is judged by its new lines.
    static func userCoverage(_ store: AuditStore, newFiles: [Int64: String], read: [String: LedgerImporter.FileRead]) throws
        -> [RunWarning]
    {
        guard !newFiles.isEmpty else { return [] }
        let files = newFiles.map { (fileId: $0.key, fromLine: read[$0.value]?.fromLine ?? 1) }
        return try store.userCoverage(files: files).filter { $0.withUser == 0 && $0.records >= userCoverageMinimum }
            .sorted { newFiles[$0.fileId]!.utf8.lexicographicallyPrecedes(newFiles[$1.fileId]!.utf8) }
            .map {
                let path = newFiles[$0.fileId]!
                let what = $0.table == "client_report" ? "client report" : "server-log record"
                let records =
                    (read[path]?.fromLine ?? 1) > 1
                    ? "the \(CountText.counted($0.records, what)) it gained (from line \(read[path]!.fromLine))"
                    : "its \(CountText.counted($0.records, what))"
                return RunWarning(
                    .userIdMissing,
                    "\(path): none of \(records) has a user_id (an export that renamed or dropped the "
                        + "field?): read without error, but the findings on them name no user, and trace cannot say whom to credit; fix "
                        + "the export and deliver the file again under this name", file: path)
            }
    }

    /// Records a file must hold for `userCoverage` to judge it (a handful without a user is no export's pattern).
    static let userCoverageMinimum: Int64 = 20

    /// - Parameter unanchored: no JWS / no receipt trust anchor is configured (`SignatureSettings`): their `untrusted_root`
    ///   records are said by `no_trust_anchor`, not counted again.
    static func afterReconcile(
        _ outcome: Reconciler.Outcome, _ options: AuditOptions, _ store: AuditStore,
        unanchored: (jws: Bool, receipts: Bool) = (false, false)
    ) throws -> [RunWarning] {
        try mostlyRejected(store, options) + logCoverage(outcome) + missing(outcome, options)
            + environments(outcome, store, unanchored: unanchored)
    }

    /// A file mostly rejected (a spreadsheet that rewrote every id or boolean) leaves the findings about what it held wrong
    /// in bulk: one warning per file of which a tenth or more of the records were rejected.
    private static func mostlyRejected(_ store: AuditStore, _ options: AuditOptions) throws -> [RunWarning] {
        var warnings: [RunWarning] = []
        // A file mostly rejected (a spreadsheet that rewrote every id or boolean) leaves the findings about
        // what it held wrong in bulk: a purchase its rejected lines carried shows as never sent.
        for file in try store.rejectedShares() where file.rejected * 10 >= file.recordsIn {
            let consequence: String
            switch SourceKind(rawValue: file.kind) {
            case .salesReport, .subscriptionReport, .subscriptionEventReport, .subscriberReport, .financialReport, .paymentsSummary:
                consequence =
                    "what they held is missing from Apple's figures (a report edited by hand or re-saved by a spreadsheet?); download it again"
            case .clientReport:
                consequence =
                    "what they held is missing from the findings (a purchase they reported is not judged); fix the file and run again"
            case .serverLog:
                consequence =
                    "what they held is missing from the findings (a purchase they carried shows as never sent); fix the file and run again"
            case .verifyResponse, .signedTransaction, .serverAPIResponse, .notificationV2, .notificationV1, .appReceipt:
                consequence =
                    "what they held is missing from the findings (a credit they would prove shows as invalid_credit, a payment they would "
                    + "confirm as claimed only); fix the file and run again"
            default:
                consequence = "what they held is missing from the findings; fix the file and run again"
            }
            // Under --redact the id a reason quotes is not said (the warning is shown on stderr and the Summary sheet).
            let reason = options.redaction == nil ? file.reason : IdRedactor.reason(file.reason)
            warnings.append(
                RunWarning(
                    .mostlyRejected,
                    "\(file.path): \(CountText.grouped(file.rejected)) of its \(CountText.grouped(file.recordsIn)) records "
                        + "(\(file.rejected * 100 / file.recordsIn)%) were rejected (first, line \(file.line): \(reason)): \(consequence)",
                    file: file.path))
        }
        return warnings
    }

    /// Logs covering different days (another retention, an export that started late): a purchase the client reported
    /// outside what the server log covers shows as never sent.
    private static func logCoverage(_ outcome: Reconciler.Outcome) -> [RunWarning] {
        guard let client = outcome.clientSpan, let server = outcome.serverSpan,
            abs(client.lowerBound - server.lowerBound) > 86_400_000 || abs(client.upperBound - server.upperBound) > 86_400_000
        else { return [] }
        let (from, to) = (max(client.lowerBound, server.lowerBound), min(client.upperBound, server.upperBound))
        let advice =
            from <= to
            ? "judge only what both cover with --from \(Timestamp.iso(from)) --to \(Timestamp.iso(to))"
            : "they do not overlap at all: pass the logs of the same days"
        return [
            RunWarning(
                .logCoverage,
                "the client reports cover \(Timestamp.iso(client.lowerBound)) to \(Timestamp.iso(client.upperBound)), the server log "
                    + "\(Timestamp.iso(server.lowerBound)) to \(Timestamp.iso(server.upperBound)): a purchase reported outside what the "
                    + "server log covers shows as never_sent; \(advice)")
        ]
    }

    /// Evidence missing or out of time: nothing imported, an as-of in the future or before the newest record, a source
    /// missing (no server log, no Apple record), answers naming requests the server log lacks.
    private static func missing(_ outcome: Reconciler.Outcome, _ options: AuditOptions) -> [RunWarning] {
        var warnings: [RunWarning] = []
        if outcome.recordCount == 0 {
            warnings.append(
                RunWarning(
                    .nothingImported,
                    "no transaction evidence (client report, server-log or Apple record) was imported from "
                        + "\(options.paths.joined(separator: ", ")): nothing was audited"))
        }
        if options.asOfMs == nil, let newest = outcome.newestRecord, newest.ms > Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 {
            warnings.append(
                RunWarning(
                    .asOfInFuture,
                    "\(newest.location): as-of \(Timestamp.iso(newest.ms)) comes from a record dated in the future; "
                        + "pass --as-of to audit as of another time", file: newest.location.file))
        }
        // An as-of given before records the run holds judges at an instant before they were written: an answer after it
        // counts for nothing, a request after it waits with a negative age, and what it resolved is resolved silently.
        if let asOf = options.asOfMs, let newest = outcome.newestRecord, newest.ms > asOf {
            warnings.append(
                RunWarning(
                    .recordsAfterAsOf,
                    "--as-of \(Timestamp.iso(asOf)) is before records the ledger holds (the newest: \(newest.location), "
                        + "\(Timestamp.iso(newest.ms))): they are judged as of an instant before they were written (a request "
                        + "after it is pending with a negative age, an answer after it may clear a finding); to audit as of a past "
                        + "instant, run on the inputs of that time into another ledger, or leave --as-of out", file: newest.location.file))
        }
        // One of the three sources missing (a log not exported, a hidden file, a failed mount) makes
        // the findings about it meaningless in bulk: say so.
        if outcome.serverRecordCount == 0 && outcome.recordCount > 0 {
            warnings.append(
                RunWarning(
                    .noServerLog,
                    "no server-log record was imported: nothing the server credited is known, so every purchase the client reported "
                        + "or Apple listed shows as never credited (dropped_order); pass the server's transaction log too"))
        }
        if outcome.appleRecordCount == 0 && outcome.serverRecordCount > 0 {
            warnings.append(
                RunWarning(
                    .noAppleRecord,
                    "no Apple record (verify response, signed transaction, notification, receipt) was imported: no grant can be proven "
                        + "and every verification shows as unanswered; pass Apple's responses too"))
        }
        if outcome.serverRecordCount > 0, let first = outcome.unlinked.first {
            warnings.append(
                RunWarning(
                    .unlinkedResponses,
                    "\(first.location): \(outcome.unlinked.count) verify response(s) name a request_id that is not in the server log "
                        + "(first: \(first.requestId)); they prove nothing for any grant", file: first.location.file))
        }
        return warnings
    }

    /// Records whose environment is in doubt, per file given, then the listings below the trust level the rules need
    /// (`unproven`), then the files kept from earlier runs whose records are in doubt, one line per kind.
    private static func environments(
        _ outcome: Reconciler.Outcome, _ store: AuditStore, unanchored: (jws: Bool, receipts: Bool)
    ) throws -> [RunWarning] {
        var warnings: [RunWarning] = []
        // Rule 24: records whose environment signals disagree prove no production payment; answers naming no
        // environment anywhere are read as production.
        // Said per file given; the files kept from earlier runs (rotated away, removed) in one line each: said every night,
        // one a kept file made a mail that grew a line a night with a log rotated under numbered names.
        let kept = Set(try store.storedFiles().filter { !$0.value.given }.keys)
        let (given, old) = (
            outcome.environmentCounts.filter { !kept.contains($0.file) }, outcome.environmentCounts.filter { kept.contains($0.file) }
        )
        let conflict =
            "Apple record(s) whose environment signals disagree (Production with a sandbox receipt_type, a notification V1 whose "
            + "environment and unified_receipt.environment differ, or subscription periods of an hour or less labelled Production or "
            + "naming no environment): read as sandbox (no production payment, no dropped order)"
        let unknown =
            "Apple answer(s) name no environment (no environment, receipt_type or transaction environment): read as production (environment unknown)"
        for file in given where file.conflicts > 0 {
            warnings.append(RunWarning(.environmentConflict, "\(file.file): \(file.conflicts) \(conflict)", file: file.file))
        }
        for file in given where file.unknown > 0 {
            warnings.append(RunWarning(.environmentUnknown, "\(file.file): \(file.unknown) \(unknown)", file: file.file))
        }
        warnings += unproven(outcome, failedRecords: try store.failedRecordsUncounted(unanchored: unanchored))
        for (code, count, what) in [
            (RunWarning.Code.environmentConflict, { (f: (file: String, conflicts: Int64, unknown: Int64)) in f.conflicts }, conflict),
            (.environmentUnknown, { $0.unknown }, unknown),
        ] {
            let files = old.filter { count($0) > 0 }
            guard let first = files.first else { continue }
            warnings.append(
                RunWarning(
                    code,
                    "\(CountText.counted(Int64(files.count), "file")) kept from earlier runs (no longer given) hold "
                        + "\(files.reduce(0) { $0 + count($1) }) \(what) (the first: \(first.file), \(count(first)))", file: first.file))
        }
        return warnings
    }

    /// Apple listings below the trust level the rules need, one warning per file and level (docs/security.md, "Trust
    /// levels"): they changed no finding, so the run says they were there, how many and the first with why.
    /// `failedRecords`: per file, the records whose signature failed that no failed listing counts
    /// (`AuditStore.failedRecordsUncounted`: a forged notification without a transaction…), said in the file's
    /// `signature_failed` warning too.
    static func unproven(
        _ outcome: Reconciler.Outcome, failedRecords: [(path: String, records: Int64, line: Int64, signature: String, source: String)] = []
    ) -> [RunWarning] {
        var warnings: [RunWarning] = []
        var records = Dictionary(failedRecords.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        func recordsText(_ r: (path: String, records: Int64, line: Int64, signature: String, source: String)) -> String {
            let verb = r.records == 1 ? "proves" : "prove"
            return "\(CountText.counted(r.records, "Apple record")) whose signature failed and that no failed listing counts "
                + "(a notification without a transaction, a forged entry of a page, a renewal info) \(verb) nothing and changed "
                + "no finding (the first: \(SourceLocation(file: r.path, line: Int(r.line))), \(r.signature), \(r.source))"
        }
        for file in outcome.unproven {
            for (code, count, what) in [
                (
                    RunWarning.Code.signatureFailed, file.failed,
                    "whose signature failed (edited, alg not ES256, unknown crit, or a chain to no configured anchor)"
                ),
                (.unprovenRecords, file.unverified, "of a signed format given unsigned (a decoded payload as plain JSON)"),
            ] {
                guard let count, let first = count.first else { continue }
                let verb = count.listings == 1 ? "proves" : "prove"
                // An unverified record that names a logged request still answers it (docs/security.md, "Trust levels").
                // A failed item of an unsigned page: the page still answers, as it would without the item.
                let answered =
                    code == .signatureFailed
                    ? "the unsigned answer listing \(count.answering == 1 ? "it" : "them") still answered its logged request, as "
                        + "it would without \(count.answering == 1 ? "it" : "them")"
                    : "answered \(count.answering == 1 ? "its" : "their") logged request (backing its grant, as docs/security.md says)"
                let changed: String
                if count.answering == 0 {
                    changed = "and changed no finding"
                } else if count.answering == count.listings {
                    changed = "for Apple's data but " + answered
                } else {
                    changed = "for Apple's data; of \(count.answering), " + answered + "; the others changed no finding"
                }
                var message =
                    "\(file.file): \(CountText.counted(count.listings, "Apple listing")) \(what) \(verb) nothing \(changed) "
                    + "(the first: \(SourceLocation(file: file.file, line: Int(first.line))), \(first.why))"
                if code == .signatureFailed, let r = records.removeValue(forKey: file.file) { message += "; " + recordsText(r) }
                warnings.append(RunWarning(code, message, file: file.file))
            }
        }
        for r in failedRecords where records[r.path] != nil {
            warnings.append(RunWarning(.signatureFailed, "\(r.path): " + recordsText(r), file: r.path))
        }
        return warnings
    }
}
