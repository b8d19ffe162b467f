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
}

/// ingest → store → reconcile → report.
///
/// The database mirrors the inputs of the last run: files are imported keyed by path and SHA-256
/// (unchanged files are not read again), files no longer given are removed, findings are
/// recomputed over everything in the store. Re-running on the same input gives the same database.
public enum AuditPipeline {
    /// Throws `AuditError` (unreadable input, unwritable output) or `SQLiteError`.
    public static func run(_ options: AuditOptions) throws -> AuditResult {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw AuditError.output(options.outputDirectory, error.localizedDescription)
        }
        let inputs = try InputCollector.files(in: options.paths, excluding: options.outputDirectory)
        let databasePath = options.outputDirectory + "/audit.sqlite"
        let store: AuditStore
        do { store = try AuditStore(path: databasePath) } catch { throw AuditError.output(databasePath, "\(error)") }

        let stored = try store.storedFiles()
        var parsed = 0
        var contentSeen: [String: String] = [:]
        for path in inputs {
            guard let data = fm.contents(atPath: path) else { throw AuditError.unreadablePath(path, "cannot read the file") }
            let file = InputFile(path: path, data: data)
            if let earlier = contentSeen[file.sha256] {
                let duplicate = ImportedFile(
                    file: file, kind: .other, format: .none, status: .skipped,
                    note: "same content as \(earlier) (not counted twice)")
                if stored[path] != StoredFile(sha256: file.sha256, note: duplicate.note) { try store.store(duplicate) }
                continue
            }
            contentSeen[file.sha256] = path
            if let previous = stored[path], previous.sha256 == file.sha256, previous.isCurrentReader,
                !previous.note.hasPrefix("same content as ")
            {
                continue
            }
            try store.store(FileImporter.read(file))
            parsed += 1
        }
        let given = Set(inputs)
        for path in stored.keys.sorted() where !given.contains(path) { try store.removeFile(path: path) }

        let ledger = try store.loadLedger()
        let (findings, asOf) = Reconciler.run(ledger, config: options.config, asOfMs: options.asOfMs, graceMs: options.graceMs)
        try store.replaceFindings(
            findings,
            parameters: [
                "as_of": asOf.map(Timestamp.iso) ?? "none (no timestamped record)",
                "grace_hours": String(Double(options.graceMs) / 3_600_000),
                "config": ConfigLoader.canonicalJSON(options.config), "schema_version": String(Schema.version),
            ])
        let snapshot = try store.snapshot()
        let workbookPath = options.outputDirectory + "/audit.xlsx"
        try writeWorkbook(ReportBuilder.workbook(snapshot), to: workbookPath)
        return AuditResult(
            snapshot: snapshot, asOfMs: asOf, databasePath: databasePath, workbookPath: workbookPath,
            filesParsed: parsed)
    }

    /// Writes to a temporary file and renames it, so a killed run never leaves half a workbook.
    private static func writeWorkbook(_ workbook: ReportWorkbook, to path: String) throws {
        let temporary = path + ".partial"
        do {
            try XLSXWriter.write(workbook, to: temporary)
            _ = try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw AuditError.output(path, "\(error)")
        }
    }
}
