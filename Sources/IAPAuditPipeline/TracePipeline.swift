import Foundation
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// What `trace` found and wrote.
public struct TraceOutcome: Sendable {
    package var result: TraceResult
    /// `DIR/trace-<id>.xlsx`, when asked for.
    public var workbookPath: String?
    /// What became of `trace`'s indexes when the ledger lacked them (built, or why not), for stderr.
    public var indexNote: String?
}

/// `trace --format xlsx` could not write its workbook: the trace it made, and why (`AuditError.output`).
public struct TraceWorkbookError: Error, CustomStringConvertible {
    public var outcome: TraceOutcome
    public var error: any Error
    public var description: String { "\(error)" }
}

/// `iap-audit trace ID`: the ledger a run left, read (`TraceReader`), judged (`TraceJudge`) and, for
/// `--format xlsx`, written as `trace-<id>.xlsx` beside it. It reads (adding only its indexes), under the
/// folder's shared lock: it waits for a run writing the ledger, and a run waits for it (`FolderLock`).
public enum TracePipeline {
    /// - Parameters:
    ///   - ledgerPath: `DIR/audit.sqlite` or `--ledger FILE`.
    ///   - workbookFolder: where to write `trace-<id>.xlsx`; nil: no workbook.
    ///   - redaction: `--redact` and its key: user and device ids shown as tokens (`TraceRedaction`).
    ///   - onWait: told once when a run is writing the ledger and the trace waits for it (`FolderLock`).
    /// - Throws: `AuditError.ledger` (missing, not iap-audit's, another version, redacted with another key than
    ///   `redaction`'s); `TraceWorkbookError` when the workbook cannot be written (it carries the trace, to be
    ///   shown all the same).
    public static func run(
        id: String, ledgerPath: String, workbookFolder: String? = nil, redaction: Redaction? = nil, onWait: (String) -> Void = { _ in }
    ) throws -> TraceOutcome {
        let folder = (ledgerPath as NSString).deletingLastPathComponent
        // No ledger file there (a folder with no run yet, a folder or another kind of file given as --ledger): nothing to
        // wait for, and no lock file left behind in a folder that is no ledger's (found by a support user test); reading
        // it says what is wrong. An empty file may be a ledger a run has just begun.
        let isLedgerFile = Self.mayBeLedger(ledgerPath)
        let lock = isLedgerFile ? try FolderLock.shared(folder: folder.isEmpty ? "." : folder, onWait: onWait) : nil
        defer { if let lock { close(lock) } }
        let indexNote = try ensureIndexes(ledgerPath)
        var plan = try TraceRedaction.plan(id: id, ledgerPath: ledgerPath, redaction: redaction)
        var result = try TraceReader.read(id: id, ledgerPath: ledgerPath, lookup: plan.lookup)
        if result.matches.isEmpty, let byTokens = plan.lookingUpTokens(of: id) {
            let again = try TraceReader.read(id: id, ledgerPath: ledgerPath, lookup: byTokens.lookup)
            if !again.matches.isEmpty { (plan, result) = (byTokens, again) }
        }
        plan.apply(&result)
        TraceJudge.judge(&result)
        var outcome = TraceOutcome(result: result, indexNote: indexNote)
        if let folder = workbookFolder {
            // Named by the id as shown: a user's token, not the user id.
            let path = folder + "/trace-\(TraceWorkbookName.of(result.id)).xlsx"
            do {
                try writeWorkbook(result, to: path)
            } catch {
                throw TraceWorkbookError(outcome: outcome, error: error)
            }
            outcome.workbookPath = path
        }
        return outcome
    }

    /// A regular file that is empty (a ledger a run has just begun) or a SQLite database (its header: `SQLite format 3`
    /// and a NUL) with a schema version (`user_version`, bytes 60–63: iap-audit sets it with its tables, in one
    /// transaction; another program's database seldom has one: helper-36 found a lock left beside one).
    static func mayBeLedger(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            let head = try? handle.read(upToCount: 64)
        else { return false }
        if head.isEmpty { return true }
        return head.count == 64 && head.prefix(16) == Data("SQLite format 3\u{0}".utf8) && head[60..<64].contains { $0 != 0 }
    }

    /// Writes the workbook beside its final name, then renames it into place: never half a workbook.
    /// - Throws: `AuditError.output`: the path and why, in one line.
    static func writeWorkbook(_ result: TraceResult, to path: String) throws {
        do {
            try XLSXWriter.write(TraceWorkbook.build(result), to: path + ".partial")
            if rename(path + ".partial", path) != 0 { throw AuditError.output(path, String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: path + ".partial")
            let why: String
            switch error {
            case let e as XLSXError: why = e.systemError.map { String(cString: strerror($0)) } ?? e.message
            case AuditError.output(_, let text): why = text
            default: why = "\(error)"
            }
            throw AuditError.output(
                path,
                "\(why) (the workbook goes beside the ledger: copy the ledger to a folder you can write, and trace it with --ledger FILE)")
        }
    }

    /// Builds `trace`'s indexes when the ledger lacks them (the first trace after a run that changed it),
    /// under the folder's shared lock (no run is writing; SQLite orders two traces building at once); when
    /// the ledger cannot be written, the trace reads without them (slower on a large ledger). Returns what
    /// happened, nil when nothing was missing.
    static func ensureIndexes(_ ledgerPath: String) throws -> String? {
        guard try !TraceReader.missingIndexes(ledgerPath: ledgerPath).isEmpty else { return nil }
        do {
            let start = Date()
            guard try TraceReader.buildIndexes(ledgerPath: ledgerPath) else { return nil }
            let seconds = String(format: "%.1f", Date().timeIntervalSince(start))
            return "built the ledger's trace indexes in \(seconds) s (once after each run that changes the ledger)"
        } catch {
            return "traced without the ledger's trace indexes (slower on a large ledger): \(error)"
        }
    }
}
