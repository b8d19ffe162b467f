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

/// plan → import → reconcile → lifecycle → report (`RunPlan`, `ImportPhase`, `ReconcilePhase`, `LifecyclePhase`,
/// `ReportPhase`).
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
    /// `run_status = incomplete` and the last good run's workbook unchanged.
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

    /// The run as its five phases, each taking what the one before produced: plan → import → reconcile → lifecycle → report.
    private static func run(
        _ options: AuditOptions, _ entries: [InputEntry], _ signatures: SignatureSettings, _ output: OutputFolder, _ timer: PhaseTimer
    ) throws -> AuditResult {
        let plan = try RunPlan.make(options, entries, signatures, output, timer)
        let imported = try ImportPhase.run(plan)
        defer { ImportProgress.phase(nil) }  // the phases after the import show theirs in place of the progress line
        let reconciled = try ReconcilePhase.run(imported)
        let observed = try LifecyclePhase.run(reconciled)
        return try ReportPhase.run(observed)
    }
}
