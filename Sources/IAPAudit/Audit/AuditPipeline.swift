import Foundation

/// What one `run` is asked to do.
public struct AuditOptions: Sendable {
    public var paths: [String]
    public var outputDirectory: String
    public var config: AuditConfig
    /// ms since 1970 UTC; nil = the newest record timestamp.
    public var asOfMs: Int64?
    /// Grace before an unanswered request is a backlog, milliseconds (default 24 h).
    public var graceMs: Int64

    public init(
        paths: [String], outputDirectory: String, config: AuditConfig = AuditConfig(), asOfMs: Int64? = nil,
        graceMs: Int64 = 24 * 3_600_000
    ) {
        self.paths = paths
        self.outputDirectory = outputDirectory
        self.config = config
        self.asOfMs = asOfMs
        self.graceMs = graceMs
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
    /// Things the operator should know (printed to stderr as warnings).
    public var warnings: [String] = []
}

/// ingest → store → reconcile → report.
///
/// The database mirrors the inputs of the last run: files are imported keyed by path and SHA-256
/// (unchanged files are not read again), files no longer given are removed, findings are
/// recomputed over everything in the store. Re-running on the same input gives the same database.
public enum AuditPipeline {
    /// Throws `AuditError` (unreadable input, unwritable output) or `SQLiteError`.
    public static func run(_ options: AuditOptions) throws -> AuditResult {
        let store = try openStore(in: options.outputDirectory)
        var warnings: [String] = []
        if try store.runParameter("run_status") == "incomplete" {
            warnings.append("the previous run into \(options.outputDirectory) did not complete; this run completes it")
        }
        try store.setRunParameter("run_status", "incomplete")
        let entries = try InputCollector.entries(in: options.paths, outputDirectory: options.outputDirectory)
        let parsed = try LedgerImporter(store: store).importEntries(entries)

        let ledger = try store.loadLedger()
        let (findings, asOf) = Reconciler.run(ledger, config: options.config, asOfMs: options.asOfMs, graceMs: options.graceMs)
        var parameters = [
            "as_of": asOf.map(Timestamp.iso) ?? "none (no timestamped record)",
            "grace_hours": String(Double(options.graceMs) / 3_600_000),
            "config": ConfigLoader.canonicalJSON(options.config), "schema_version": String(Schema.version),
            "run_status": "complete",
        ]
        if options.asOfMs == nil, let newest = Reconciler.newestRecord(ledger) {
            parameters["as_of_source"] = newest.location.description
            if newest.ms > Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 {
                warnings.append(
                    "\(newest.location): as-of \(Timestamp.iso(newest.ms)) comes from a record dated in the future; pass --as-of to audit as of another time"
                )
            }
        }
        try store.replaceFindings(findings, parameters: parameters)
        let snapshot = try store.snapshot()
        let workbookPath = options.outputDirectory + "/audit.xlsx"
        try writeWorkbook(ReportBuilder.workbook(snapshot), to: workbookPath)
        return AuditResult(
            snapshot: snapshot, asOfMs: asOf, databasePath: options.outputDirectory + "/audit.sqlite", workbookPath: workbookPath,
            filesParsed: parsed, warnings: warnings)
    }

    private static func openStore(in directory: String) throws -> AuditStore {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw AuditError.output(directory, "exists and is not a folder")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AuditError.output(directory, "cannot create the folder")
        }
        let path = directory + "/audit.sqlite"
        do { return try AuditStore(path: path) } catch { throw AuditError.output(path, "\(error)") }
    }

    /// Writes to a temporary file and renames it over the old one (atomic), so a killed run never
    /// leaves half a workbook; refuses to replace anything that is not a file.
    private static func writeWorkbook(_ workbook: ReportWorkbook, to path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AuditError.output(path, "exists and is a folder")
        }
        let temporary = path + ".partial"
        do {
            try XLSXWriter.write(workbook, to: temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw AuditError.output(path, "\(error)")
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw AuditError.output(path, reason)
        }
    }
}
