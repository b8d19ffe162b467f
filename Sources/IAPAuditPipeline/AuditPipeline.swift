import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// What one `run` is asked to do.
public struct AuditOptions: Sendable {
    public var paths: [String]
    public var outputDirectory: String
    /// `--ledger FILE`: the ledger's path; nil: `outputDirectory/audit.sqlite`.
    public var ledgerPath: String?
    /// `--forget-missing`: drop the records of the files the ledger holds that this run is not given; by
    /// default they are kept (the ledger only grows).
    public var forgetMissing = false
    /// `--reread FILE`: an input file read again whole from its first line, whatever the ledger holds of it (the repair
    /// of a ledger found inconsistent about it, docs/operations.md); nil: none.
    public var reread: String? = nil
    public var config: AuditConfig
    /// ms since 1970 UTC; nil = the newest record timestamp.
    public var asOfMs: Int64?
    /// Grace before an unanswered request is a backlog, milliseconds (default 24 h).
    public var graceMs: Int64
    /// `--from` / `--to`: the audit window's bounds, UTC ms, inclusive (semantics.md rule 17); nil = not given.
    public var fromMs: Int64?
    public var toMs: Int64?
    /// The config file used, as given or found (its entry among the inputs is listed as used, not as a
    /// config to pass with `--config`); nil when none.
    public var configFile: String?
    /// Where the config came from, stored as the run parameter `config_source`: `--config <path>`,
    /// `<path> (default)`, `<path> (found in the input folder)` or `none`.
    public var configSource = "none"
    /// Warnings found before the run (several configs in the input folder), reported with the run's.
    public var warnings: [RunWarning] = []
    /// Store the run's results: its findings (table `finding`), parameters and warnings, `audit.xlsx`, its place in the
    /// findings' lifecycle (`RunLifecycle`). False (a close's run, docs/close.md): it imports and reconciles for its
    /// caller only; the ledger's findings, `audit.xlsx` and lifecycle stay the last run's, the warnings only the run reading a
    /// file finds stay pending (`PendingWarnings`), and the next run judges what it imported, as if it had imported it.
    public var storesResults = true
    /// `--redact` / `--redact-ledger` (README, "Redaction"); nil: the outputs show the ids as they are.
    public var redaction: Redaction? = nil
    /// `--limit NAME=VALUE`: what is read of each input file (docs/security.md, "Limits").
    public var limits = InputLimits()

    public init(
        paths: [String], outputDirectory: String, config: AuditConfig = AuditConfig(), asOfMs: Int64? = nil,
        graceMs: Int64 = 24 * 3_600_000
    ) {
        (self.paths, self.outputDirectory, self.config, self.asOfMs, self.graceMs) = (paths, outputDirectory, config, asOfMs, graceMs)
    }
}

/// The result of a run: what the store holds afterwards, and where the outputs are.
public struct AuditResult: Sendable {
    public var snapshot: AuditSnapshot
    /// The audit instant used; nil when no record had a timestamp.
    public var asOfMs: Int64?
    public var databasePath: String
    public var workbookPath: String
    /// Files parsed in this run (the others were unchanged since the last run into this folder).
    public var filesParsed: Int
    /// What the operator should know: printed on stderr, listed in `--json`, stored in table
    /// `run_warning` and shown on the Summary sheet (the same list as `snapshot.warnings`).
    public var warnings: [RunWarning] = []
    /// How the outputs redact ids (`--redact`): the run's summary and diagnostics redact theirs too.
    public var redaction: Redaction? = nil
    /// What this run read of each file it read, by path (a grown log: its new lines only).
    var read: [String: LedgerImporter.FileRead] = [:]

    /// The rejected line is one this run read (of a file it read; of a grown log, one of its new lines; of a file read
    /// again whole, one it did not hold before).
    package func readThisRun(_ location: SourceLocation) -> Bool {
        guard let file = read[location.file] else { return false }
        return file.newRejectedLines?.contains(location.line) ?? (location.line >= file.fromLine)
    }

    /// Lines this run rejected (of a file read again whole, those it did not hold before).
    package var rejectedThisRun: Int64 { read.values.reduce(0) { $0 + $1.rejected } }
}

/// ingest → store → reconcile → report.
///
/// The database is a ledger that only grows: files are imported keyed by path and SHA-256, each content
/// once (unchanged files are not read again, copies add nothing), files no longer given keep their records
/// (`forgetMissing` drops them), findings are recomputed over everything in the store. Re-running on the
/// same input gives the same database.
public enum AuditPipeline {
    /// A folder among the paths under which no input file was found.
    static func isEmptyFolder(_ path: String, _ entries: [InputEntry]) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return false }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        return !entries.contains { $0.path.hasPrefix(prefix) }
    }

    /// Throws `AuditError` (unreadable input, unwritable or busy output) or `SQLiteError`.
    /// Inputs are checked before the output folder is touched.
    ///
    /// A full disk under `--out` is said as such (`DiskFull`), and leaves a database that says
    /// `run_status = incomplete` and no workbook.
    public static func run(_ options: AuditOptions) throws -> AuditResult { try runHoldingFolder(options).result }

    /// What a run stopped by an input cut while it was read says, after the file's path.
    public static let inputCutMessage = MappingGuard.cutMessage.description

    /// `text(path)` is also written on standard output if the input at `path` is cut while read (the run is stopped at
    /// once, in a signal handler: `--json`'s failure object, which no `catch` prints then).
    public static func alsoPrintWhenAnInputIsCut(_ text: @escaping @Sendable (String) -> String) { MappingGuard.alsoPrint(text) }

    /// `run`, and its output folder, still locked: a close goes on writing the ledger under the same lock (let go in
    /// between, a run starting then made the close fail).
    static func runHoldingFolder(_ options: AuditOptions) throws -> (result: AuditResult, output: OutputFolder) {
        var options = options
        // A redacted ledger's rules see tokens: its sandbox allowlist is tokens too.
        if let redaction = options.redaction, redaction.ledger { options.config = redaction.redactor.config(options.config) }
        let timer = PhaseTimer()
        let entries = try InputCollector.entries(
            in: options.paths, outputDirectory: options.outputDirectory, configFile: options.configFile, ledger: options.ledgerPath)
        if let path = options.reread, !entries.contains(where: { $0.path == path && $0.skipReason == nil }) {
            throw AuditError.ledger(
                path, "--reread: not a file this run reads (give it as the error named it, with the run's inputs)")
        }
        let signatures = try SignatureSettings(options.config)
        let output = try OutputFolder(path: options.outputDirectory, ledger: options.ledgerPath)
        do {
            return (try run(options, entries, signatures, output, timer), output)
        } catch {
            let error = DamagedLedger.reported(error, databasePath: output.databasePath, spillPath: output.spillPath)
            throw DiskFull.reported(
                error, databasePath: output.databasePath, workbookPath: output.workbookPath, folder: output.path)
        }
    }

    private static func run(
        _ options: AuditOptions, _ entries: [InputEntry], _ signatures: SignatureSettings, _ output: OutputFolder, _ timer: PhaseTimer
    ) throws -> AuditResult {
        let store = try output.openStore()
        // No file at all under the paths (an empty folder: a failed mount, a log export that did not
        // run) would empty a ledger the last run filled: stop instead.
        let stored = try store.storedFiles()
        try Redaction.check(
            options.redaction, stored: try store.runParameter("redaction"), storedFiles: stored.count, databasePath: output.databasePath)
        if entries.isEmpty, !stored.isEmpty {
            throw AuditError.unreadablePath(
                options.paths.joined(separator: ", "),
                "no input file found (a failed mount or export?); the last run's ledger of \(stored.count) file(s) in "
                    + "\(output.databasePath) is kept as it is; to empty it, remove that file")
        }
        // The same for one folder among several (the server log's mount failed, the others did not).
        for path in options.paths where !stored.isEmpty && Self.isEmptyFolder(path, entries) {
            let prefix = path.hasSuffix("/") ? path : path + "/"
            let held = stored.keys.filter { $0.hasPrefix(prefix) }.count
            guard held > 0 else { continue }
            throw AuditError.unreadablePath(
                path,
                "no input file found in this folder (a failed mount or export?); the last run's ledger of \(held) file(s) from it in "
                    + "\(output.databasePath) is kept as it is; to drop them, remove the folder from the command line")
        }
        timer.lap("import_open")
        var warnings = try options.warnings + RunChecks.beforeImport(store, options, databasePath: output.databasePath)
        timer.lap("import_checks")
        // A close leaves the last run's findings and workbook as they are (they stay what it reconciled).
        if options.storesResults { try store.setRunParameter("run_status", "incomplete") }
        // Said before the first token is stored: a killed run's ledger is refused to another key too.
        if let redaction = options.redaction, redaction.ledger { try store.setRunParameter("redaction", redaction.parameter) }
        if options.storesResults { try output.removeWorkbook() }
        let settingsBefore = try store.runParameter("signature_settings")
        let feedsSeenBefore = RecordFeed.seen(try store.runParameter("feeds_seen"))
        let pending = PendingWarnings.decode(try store.runParameter(PendingWarnings.parameter))
        let settingsChanged = settingsBefore != signatures.fingerprint
        // Other limits than the last run's: the files it cut at a limit are read again (they may be read further now).
        let limitsChanged = (try store.runParameter("input_limits") ?? "") != options.limits.parameter
        if settingsChanged, settingsBefore != nil, !stored.isEmpty {
            // A night that takes a full run's time says why.
            warnings.append(
                RunWarning(
                    .signatureSettingsChanged,
                    "every input file is read again: the trust anchors or --signatures-at differ from the last run's (signed records "
                        + "are verified as they are read, and the ledger holds their verdicts); runs with these settings read only "
                        + "what changed"))
        }
        let (parsed, bulk, vanished, imported) = try LedgerImporter(
            store: store, checker: signatures.checker, rereadAll: settingsChanged, reread: Set(options.reread.map { [$0] } ?? []),
            metrics: timer.metrics,
            scratchDirectory: output.spillPath, limits: options.limits, rereadCut: limitsChanged, forgetMissing: options.forgetMissing,
            redactor: options.redaction.flatMap { $0.ledger ? $0.redactor : nil }, pending: pending
        )
        .importEntries(entries)
        let read = try UnrecordedImports.widened(imported, stored: stored, store: store)
        let carried = PendingWarnings.carried(pending, read: Set(read.keys), given: Set(entries.map(\.path)), said: vanished)
        if !pending.isEmpty || vanished.contains(where: { PendingWarnings.codes.contains($0.code) }) {
            try store.setRunParameter(PendingWarnings.parameter, PendingWarnings.encode(vanished + carried))
        }
        timer.lap("import_files")
        try store.setRunParameter("signature_settings", signatures.fingerprint)
        try store.setRunParameter("input_limits", options.limits.parameter)
        // The carry a run left is for the ledger as that run left it.
        let generation = try store.advanceCarryGeneration()
        let carryGeneration = RequestCarry.Generation(previous: generation.previous, next: generation.next)
        warnings += vanished + carried
        let lifecycle = try RunLifecycle(store, options, signatures: signatures.fingerprint, read: read)
        let observed = options.storesResults ? lifecycle : nil
        timer.lap("import")
        ImportProgress.phase("reconciling")
        defer { ImportProgress.phase(nil) }
        // Reconciliation reads the facts on a second connection while this one builds the indexes.
        try store.beginConcurrentReads()
        let indexing = Background { if bulk { try store.endBulkImport() } }
        let outcome: Reconciler.Outcome
        do {
            outcome = try Reconciler.run(
                try store.factReader(), config: options.config, asOfMs: options.asOfMs, graceMs: options.graceMs,
                fromMs: options.fromMs, toMs: options.toMs, spillDirectory: output.spillPath,
                carry: (output.carryPath, carryGeneration), lap: timer.lap)
        } catch {
            try? indexing.wait()  // the store is the index builder's until it is done
            throw error
        }
        timer.lap("reconcile")
        if let carry = outcome.carry {
            switch carry.mode {
            case .incremental: timer.note("reconcile_carry", "incremental: \(carry.computed) requests computed, the rest carried")
            case .full(let reason): timer.note("reconcile_carry", "full (\(reason)): \(carry.computed) requests computed")
            }
        }
        ImportProgress.phase("writing audit.xlsx and storing the findings")
        let asOf = outcome.asOfMs
        var parameters = [
            "as_of": asOf.map(Timestamp.iso) ?? "none (no timestamped record)",
            "grace_hours": String(Double(options.graceMs) / 3_600_000),
            "audit_window": outcome.window.description,
            "config": ConfigLoader.canonicalJSON(options.config), "config_source": options.configSource,
            "schema_version": String(Schema.version),
            "tool_version": ToolVersion.current, "signature_settings": signatures.fingerprint,
            "jws_trust_anchors": signatures.jwsAnchorPaths.joined(separator: ", "),
            "receipt_trust_anchors": signatures.receiptAnchorPaths.joined(separator: ", "),
            // Complete only once the workbook is written too (below).
            "run_status": "incomplete",
        ]
        if let redaction = options.redaction { parameters["redaction"] = redaction.parameter }
        // Kept with the run's parameters (which replace the run_parameter table): the next run compares its limits.
        if !options.limits.parameter.isEmpty { parameters["input_limits"] = options.limits.parameter }
        if options.asOfMs == nil, let newest = outcome.newestRecord {
            parameters["as_of_source"] = newest.location.description
        }
        // Feeds the ledger held a timed record of, at this run or an earlier one: one that holds none now (its file
        // emptied, forgotten) is judged stale all the same (`--fail-on-stale`).
        let feedsNow: [(RecordFeed, Bool)] = [
            (.clientReports, outcome.clientSpan != nil), (.serverLog, outcome.serverSpan != nil),
            (.appleRecords, outcome.newestReceivedMs != nil),
        ]
        parameters["feeds_seen"] = RecordFeed.seenText(feedsSeenBefore.union(feedsNow.filter(\.1).map(\.0)))
        let recorded: (changes: RunChanges, record: LifecycleRecord?, runInputs: [(path: String, sha256: String)]?)?
        do {
            recorded = try observed?.changes(
                outcome.findings, databasePath: output.databasePath, asOfMs: asOf, nowMs: Int64(Date().timeIntervalSince1970 * 1000))
        } catch {
            try? indexing.wait()
            throw error
        }
        if let recorded {
            (parameters["run"], parameters["run_fingerprint"]) = (String(recorded.changes.run), recorded.changes.fingerprint)
        }
        timer.lap("report_lifecycle")
        // The checks read the store: its connection is the index builder's until it is done (one connection, one
        // thread at a time: it is opened NOMUTEX). Checking while it built crashed a 1M run in SQLite (signal 11).
        try indexing.wait()
        warnings += try RunChecks.afterReconcile(
            outcome, options, store, unanchored: (signatures.jwsAnchorPaths.isEmpty, signatures.receiptAnchorPaths.isEmpty))
        warnings += try RunChecks.userCoverage(store, newFiles: lifecycle.newFiles, read: read)
        if outcome.signedRecordCount > 0 { warnings += signatures.warnings(forSources: try store.appleSources()) }
        // What the summary prints of the rejected lines: also those of the files this run brought without reading them.
        let diagnosed = try UnrecordedImports.withBroughtUnread(read, brought: lifecycle.brought, store: store)
        timer.lap("report_checks")
        // The workbook is written from the findings as reconciled while the store takes them (once its
        // indexes are built): both read the sorted findings at once.
        var reported = parameters
        reported["run_status"] = "complete"  // what the store says once the workbook exists
        if !options.storesResults {
            // A close: the findings for its caller, from the spill, the parameters as a run stores them.
            var snapshot = try AuditStore.snapshot(
                path: output.databasePath, findings: try outcome.findings.stream(), parameters: reported, warnings: warnings)
            if options.redaction != nil { snapshot.files = snapshot.files.map(\.keysRedacted) }
            try? FileManager.default.removeItem(atPath: output.spillPath)
            try store.endConcurrentReads()
            timer.write()
            return AuditResult(
                snapshot: snapshot, asOfMs: asOf, databasePath: output.databasePath, workbookPath: output.workbookPath,
                filesParsed: parsed, warnings: warnings, redaction: options.redaction, read: diagnosed)
        }
        // The outputs' redaction (a redacted ledger holds tokens already).
        let shown = options.redaction.flatMap { $0.ledger ? nil : $0.redactor }
        if let shown { reported["config"] = ConfigLoader.canonicalJSON(shown.config(options.config)) }
        var report = try AuditStore.snapshot(
            path: output.databasePath, findings: try outcome.findings.stream(), parameters: reported, warnings: warnings)
        report.changes = recorded?.changes
        if shown != nil { report.files = report.files.map(\.keysRedacted) }
        let storing = Background { [warnings, parameters, prices = report.prices] in
            try indexing.wait()
            try store.replaceFindings(
                outcome.findings.forEach, parameters: parameters, warnings: warnings, lifecycle: recorded?.record,
                runInputs: recorded?.runInputs, prices: prices)
        }
        do {
            try output.writeWorkbook(ReportBuilder.workbook(report, redactor: shown))
        } catch {
            try? storing.wait()
            throw error
        }
        timer.lap("report_workbook")
        // The workbook goes in place only beside a database that holds its findings and says complete:
        // a failure until then (a full disk) leaves no workbook and a database that says incomplete.
        do {
            try storing.wait()
            try? FileManager.default.removeItem(atPath: output.spillPath)
            try store.endConcurrentReads()
            // Complete first: a run killed between the two leaves no workbook, not one beside `incomplete` (found by a
            // user test killing runs the moment audit.xlsx appeared: 4 of 4 left it beside an incomplete ledger).
            try store.setRunParameter("run_status", "complete")
            try output.publishWorkbook()
        } catch {
            output.discardWorkbook()
            try? store.setRunParameter("run_status", "incomplete")
            throw error
        }
        timer.lap("report")
        var snapshot = try store.snapshot()
        snapshot.changes = recorded?.changes
        if options.redaction != nil { snapshot.files = snapshot.files.map(\.keysRedacted) }
        timer.write()
        return AuditResult(
            snapshot: snapshot, asOfMs: asOf, databasePath: output.databasePath, workbookPath: output.workbookPath,
            filesParsed: parsed, warnings: warnings, redaction: options.redaction, read: diagnosed)
    }
}
