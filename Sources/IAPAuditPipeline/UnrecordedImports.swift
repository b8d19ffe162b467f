import IAPAuditModel
import IAPAuditStore

/// The files a run reads again that the ledger held otherwise than its last recorded run had them: imported since by a
/// `close` (which stores no run) or by a run that did not complete (`source_file` against `run_input`). No recorded run
/// said what that import met, so what this run read of such a file counts from its first line: its rejected lines are
/// this run's to print and to alert on (`--fail-on-rejected`), as those of a file it brought without reading are
/// (`RunAlerts.rejectedReasons`). Found by a user test: a log a close had read, grown again before the night, lost the
/// alert on the line the close had rejected.
enum UnrecordedImports {
    /// `read` with each such file's entry counting every rejected line it holds now.
    /// - Parameter stored: the ledger's files as this run found them, before its import.
    static func widened(
        _ read: [String: LedgerImporter.FileRead], stored: [String: StoredFile], store: AuditStore
    ) throws -> [String: LedgerImporter.FileRead] {
        guard !read.isEmpty, try store.lastRun() != nil else { return read }
        let recorded = try store.runInputs()
        let unrecorded = read.keys.filter { path in stored[path].map { recorded[path] != $0.sha256 } ?? false }
        guard !unrecorded.isEmpty else { return read }
        let now = try store.storedFiles()
        let followed = try FollowedLogs.lastLines(store)
        var result = read
        for path in unrecorded {
            if var since = try FollowedLogs.readSince(path, followed, store) {
                since.fromLine = min(since.fromLine, read[path]!.fromLine)
                result[path] = since
                continue
            }
            result[path] = LedgerImporter.FileRead(fromLine: 1, rejected: now[path]?.recordsRejected ?? read[path]!.rejected)
        }
        return result
    }

    /// `read` with the files this run brought without reading them (a close or a run that did not complete read them;
    /// they are unchanged since) that hold rejected lines: every one is this run's to print, as it is to alert on
    /// (helper-38: the night printed "read by earlier runs" for a line only a close had read).
    static func withBroughtUnread(
        _ read: [String: LedgerImporter.FileRead], brought: [String], store: AuditStore
    ) throws -> [String: LedgerImporter.FileRead] {
        let unread = brought.filter { read[$0] == nil }
        guard !unread.isEmpty else { return read }
        let now = try store.storedFiles()
        let followed = try FollowedLogs.lastLines(store)
        var result = read
        for path in unread {
            guard let rejected = now[path]?.recordsRejected, rejected > 0 else { continue }
            result[path] = try FollowedLogs.readSince(path, followed, store) ?? LedgerImporter.FileRead(fromLine: 1, rejected: rejected)
        }
        return result
    }
}
