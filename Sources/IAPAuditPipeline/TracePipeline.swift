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
    ///   - tail: the options a command of the output repeats (`--out DIR`), with a leading space (`hint`).
    /// - Throws: `AuditError.ledger` (missing, not iap-audit's, another version, redacted with another key than
    ///   `redaction`'s); `TraceWorkbookError` when the workbook cannot be written (it carries the trace, to be
    ///   shown all the same).
    public static func run(
        id: String, ledgerPath: String, workbookFolder: String? = nil, redaction: Redaction? = nil, tail: String = "",
        onWait: (String) -> Void = { _ in }
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
        if let hint = try hint(result, ledgerPath: ledgerPath, tail: tail) { result.notes.append(hint) }
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

/// What `trace --user U …` found, and wrote.
public struct TraceSearchOutcome: Sendable {
    package var result: TraceSearchResult
    /// `DIR/trace-search-<user>.xlsx`, when asked for.
    public var workbookPath: String?
    public var indexNote: String?
}

extension TracePipeline {
    /// `trace --user U [--product P] [--at TIME [--within D]] [--price AMOUNT]`: the user's purchases matching what the
    /// customer knows (`TraceSearch`), each judged (`TraceJudge`), under the folder's shared lock as `run` reads.
    /// - Parameter tail: the options each candidate's command repeats (`--out DIR`), for the workbook.
    /// - Throws: as `run`.
    package static func search(
        _ request: TraceSearchRequest, ledgerPath: String, workbookFolder: String? = nil, redaction: Redaction? = nil, tail: String = "",
        onWait: (String) -> Void = { _ in }
    ) throws -> TraceSearchOutcome {
        try reading(ledgerPath, onWait: onWait) { indexNote in
            let plan = try TraceRedaction.plan(id: request.userId, ledgerPath: ledgerPath, redaction: redaction)
            var result = try TraceSearch.read(request, ledgerPath: ledgerPath, lookupUser: plan.lookup[.userId])
            plan.apply(&result.traced)
            // As trace shows a user's id: its token under --redact.
            if let redactor = redaction?.redactor, !IdRedactor.isToken(request.userId) {
                result.request.userId = redactor.user(request.userId)
            }
            result.traced.id = result.request.userId
            TraceJudge.judge(&result.traced)
            var outcome = TraceSearchOutcome(result: result, indexNote: indexNote)
            if let folder = workbookFolder {
                let path = folder + "/trace-search-\(TraceWorkbookName.of(result.traced.id)).xlsx"
                do {
                    try XLSXWriter.write(TraceSearchOutput.workbook(result, tail: tail), to: path + ".partial")
                    if rename(path + ".partial", path) != 0 { throw AuditError.output(path, String(cString: strerror(errno))) }
                } catch {
                    try? FileManager.default.removeItem(atPath: path + ".partial")
                    throw AuditError.output(path, "\(error)")
                }
                outcome.workbookPath = path
            }
            return outcome
        }
    }

    /// `trace ID` for an id that looks spreadsheet-mangled (`TraceMangledId`): the ledger ids it may be, none traced; nil
    /// when the id has none of the mangled forms.
    /// - Parameters:
    ///   - userId: `--user`: that user's ids first (a token looked up as `trace --redact` does).
    ///   - redaction: `--redact`: the candidates' users shown as tokens.
    package static func mangled(
        id: String, userId: String?, ledgerPath: String, redaction: Redaction? = nil, onWait: (String) -> Void = { _ in }
    ) throws -> (answer: TraceMangledOutput.Answer, indexNote: String?)? {
        guard let mangled = TraceMangledId.recognise(id) else { return nil }
        return try reading(ledgerPath, onWait: onWait) { indexNote in
            let lookup = try userId.map {
                try TraceRedaction.plan(id: $0, ledgerPath: ledgerPath, redaction: redaction).lookup[.userId] ?? $0
            }
            var (candidates, more, capped) = try TraceMangledSearch.candidates(of: id, mangled, userId: lookup, ledgerPath: ledgerPath)
            // A ledger of original ids under --redact: its users as tokens (a ledger of tokens holds them so already).
            if let redactor = redaction?.redactor,
                Redaction.ledgerKey(try TraceReader.runParameters(ledgerPath: ledgerPath)["redaction"]) == nil
            {
                for i in candidates.indices { candidates[i].userIds = candidates[i].userIds.map(redactor.user) }
            }
            var answer = TraceMangledOutput.Answer(
                id: id, mangled: mangled, candidates: candidates, more: more, userId: userId, ledgerPath: ledgerPath)
            answer.moreCapped = capped
            if let redactor = redaction?.redactor, let userId, !IdRedactor.isToken(userId) { answer.userId = redactor.user(userId) }
            return (answer, indexNote)
        }
    }

    /// What an id that leads to no transaction, or to a user's, is, and how to find one purchase (`trace --user`): a note
    /// for the trace's output. Nil for any other id, and for an unknown id with near matches or rejected lines.
    /// - Parameter tail: the options a command repeats (`--out DIR`).
    static func hint(_ result: TraceResult, ledgerPath: String, tail: String) throws -> String? {
        let at = "--at 'YYYY-MM-DD HH:MM'"
        if result.matches.isEmpty {
            if let count = try TraceSearch.productPurchases(result.id, ledgerPath: ledgerPath) {
                return "\(result.id) is a product (\(count) purchase\(count == 1 ? "" : "s") reported by the app): find one with "
                    + "iap-audit trace --user USER --product \(result.id) \(at)\(tail)"
            }
            // A near match or a rejected line holding it says more than a search would.
            guard result.nearMatches.isEmpty && result.rejectedLines.isEmpty else { return nil }
            return "\(result.id) is no id, product or user the ledger knows; to find a purchase from what the customer knows: "
                + "iap-audit trace --user USER [--product PRODUCT] [\(at)] [--price AMOUNT]\(tail)"
        }
        guard result.matches.contains(where: { $0.kind == .userId }) else { return nil }
        let count = result.transactions.count
        return "\(result.id) is a user (\(count) transaction\(count == 1 ? "" : "s")): to find one purchase, "
            + "iap-audit trace --user \(result.id) --product PRODUCT \(at)\(tail)"
    }

    /// `body` under the folder's shared lock, with `trace`'s indexes built when missing (their note passed on).
    static func reading<T>(_ ledgerPath: String, onWait: (String) -> Void, _ body: (String?) throws -> T) throws -> T {
        let folder = (ledgerPath as NSString).deletingLastPathComponent
        let lock = mayBeLedger(ledgerPath) ? try FolderLock.shared(folder: folder.isEmpty ? "." : folder, onWait: onWait) : nil
        defer { if let lock { close(lock) } }
        return try body(try ensureIndexes(ledgerPath))
    }
}
