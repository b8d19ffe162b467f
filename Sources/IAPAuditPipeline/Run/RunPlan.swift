import Foundation
import IAPAuditModel
import IAPAuditStore

/// A run's first phase: its inputs, its output folder and ledger, and what the last run left that this one must know,
/// checked before anything is imported. An empty input folder stops it here, the ledger keeping what it holds.
struct RunPlan {
    let options: AuditOptions
    let entries: [InputEntry]
    let signatures: SignatureSettings
    let output: OutputFolder
    let timer: PhaseTimer
    let store: AuditStore
    /// The files the ledger held before the run, by path.
    let stored: [String: StoredFile]
    /// The warnings so far: those given before the run, the checks before the import, a change of signature settings.
    let warnings: [RunWarning]
    /// The feeds the ledger held a timed record of at an earlier run (run parameter `feeds_seen`).
    let feedsSeenBefore: Set<RecordFeed>
    /// Which recorded runs each feed brought records to, as of the last recorded run (run parameter `feed_runs`), and the
    /// feeds that stopped at it (`feeds_stopped`, as stored): a repeated run keeps both.
    let feedRunsBefore: (state: FeedRuns, stopped: String?)
    /// The warnings the last runs said of files not read since (`PendingWarnings`).
    let pending: [RunWarning]
    /// The trust anchors or `--signatures-at` differ from the last run's: every file is read again.
    let settingsChanged: Bool
    /// Other `--limit`s than the last run's: the files it cut at a limit are read again.
    let limitsChanged: Bool
    /// What people did about purchases (`iap-audit resolve`): evidence the rules read (rule 25), part of the run's identity.
    let manual: ManualActions
    /// The last recorded run whose verdict was delivered (`UndeliveredPages`; 0: none yet, a new ledger); nil: not known (a
    /// ledger of an iap-audit before it was kept).
    let deliveredRun: Int?

    /// Opens the ledger, refuses an empty input folder, and marks the ledger `run_status = incomplete` (a run that
    /// stores results: the last run's `audit.xlsx` stays until this run's replaces it).
    static func make(
        _ options: AuditOptions, _ entries: [InputEntry], _ signatures: SignatureSettings, _ output: OutputFolder, _ timer: PhaseTimer
    ) throws -> RunPlan {
        let store = try output.openStore()
        let stored = try store.storedFiles()
        try Redaction.check(
            options.redaction, stored: try store.runParameter("redaction"), storedFiles: stored.count, databasePath: output.databasePath)
        try refuseEmptyInputs(options, entries, stored: stored, databasePath: output.databasePath)
        timer.lap("import_open")
        var warnings = try options.warnings + RunChecks.beforeImport(store, options, databasePath: output.databasePath)
        timer.lap("import_checks")
        // A close leaves the last run's findings and workbook as they are (they stay what it reconciled).
        if options.storesResults { try store.setRunParameter("run_status", "incomplete") }
        // Said before the first token is stored: a killed run's ledger is refused to another key too.
        if let redaction = options.redaction, redaction.ledger { try store.setRunParameter("redaction", redaction.parameter) }
        if options.storesResults { output.removePartialWorkbook() }
        let settingsBefore = try store.runParameter("signature_settings")
        let feedsSeenBefore = RecordFeed.seen(try store.runParameter("feeds_seen"))
        let feedRunsBefore = (FeedRuns(try store.runParameter(FeedRuns.parameter)), try store.runParameter(FeedRuns.stoppedParameter))
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
        let manual = ManualActions(try store.manualActions())
        let deliveredRun = try UndeliveredPages.deliveredRun(store)
        return RunPlan(
            options: options, entries: entries, signatures: signatures, output: output, timer: timer, store: store, stored: stored,
            warnings: warnings, feedsSeenBefore: feedsSeenBefore, feedRunsBefore: feedRunsBefore, pending: pending,
            settingsChanged: settingsChanged, limitsChanged: limitsChanged, manual: manual, deliveredRun: deliveredRun)
    }

    /// No file at all under the paths (an empty folder: a failed mount, a log export that did not run) would empty a ledger
    /// the last run filled: stop instead. The same for one folder among several (the server log's mount failed, the others
    /// did not).
    private static func refuseEmptyInputs(
        _ options: AuditOptions, _ entries: [InputEntry], stored: [String: StoredFile], databasePath: String
    ) throws {
        if entries.isEmpty, !stored.isEmpty {
            throw AuditError.unreadablePath(
                options.paths.joined(separator: ", "),
                "no input file found (a failed mount or export?); the last run's ledger of \(stored.count) file(s) in "
                    + "\(databasePath) is kept as it is; to empty it, remove that file")
        }
        for path in options.paths where !stored.isEmpty && AuditPipeline.isEmptyFolder(path, entries) {
            let prefix = path.hasSuffix("/") ? path : path + "/"
            let held = stored.keys.filter { $0.hasPrefix(prefix) }.count
            guard held > 0 else { continue }
            throw AuditError.unreadablePath(
                path,
                "no input file found in this folder (a failed mount or export?); the last run's ledger of \(held) file(s) from it in "
                    + "\(databasePath) is kept as it is; to drop them, remove the folder from the command line")
        }
    }
}
