import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditStore

/// One `LedgerImporter.importEntries`: the entries as planned, brought into the ledger one by one, and what bringing them
/// finds as it goes (the contents seen, for copies; what was read; the files emptied).
final class ImportRound {
    let importer: LedgerImporter
    let entries: [InputEntry]
    /// Per entry, its plan (`LedgerImporter.plan`); nil: skipped.
    let files: [LedgerImporter.PlannedFile?]
    /// The ledger's files before the import (renamed and rotated ones followed), by path.
    let stored: [String: StoredFile]
    /// Given paths that cannot be read whose records the ledger keeps: why, by path.
    let unreadable: [String: String]
    /// Kept files (not given) whose records stay.
    let keptPaths: Set<String>
    let hashes: HashPrefetcher
    let progress: ImportProgress
    /// The path holding a content, by the SHA-256 of its bytes and, for files whose records were imported, of their content
    /// (a gzip file's inflated bytes): a file of the same bytes as another, or whose content is one imported, is a copy of it.
    private(set) var bytesSeen: [String: String] = [:]
    private(set) var recordsSeen: [String: String] = [:]
    /// Files whose records this run's read emptied: path, bytes, records held before, content SHA-256.
    private(set) var emptied: [(path: String, bytes: Int, held: Int64, content: String)] = []
    /// What the run read of each file it read, by path.
    private(set) var read: [String: LedgerImporter.FileRead] = [:]
    /// Kept files (not given) whose content a file of this run is: its path, by theirs.
    private(set) var copiedAs: [String: String] = [:]

    init(
        importer: LedgerImporter, entries: [InputEntry], files: [LedgerImporter.PlannedFile?], stored: [String: StoredFile],
        unreadable: [String: String], keptPaths: Set<String>, hashes: HashPrefetcher, progress: ImportProgress
    ) {
        (self.importer, self.entries, self.files, self.stored) = (importer, entries, files, stored)
        (self.unreadable, self.keptPaths, self.hashes, self.progress) = (unreadable, keptPaths, hashes, progress)
    }

    private var store: AuditStore { importer.store }

    /// The files kept from earlier runs, then this run's the ledger holds unchanged, then the old parts of logs that grew:
    /// seen before any file is brought, whatever the order of the entries.
    func seeHeld(_ keeping: [String]) {
        for path in keeping where stored[path]!.status == ImportStatus.imported.rawValue && stored[path]!.bytes > 0 {
            see(path, bytes: stored[path]!.sha256, content: stored[path]!.contentSha256)
        }
        // This run's files the ledger holds unchanged come before new ones, whatever their order: a new copy
        // of one is the copy (skipped), not the stored file.
        for (number, entry) in entries.enumerated() {
            guard let item = files[number], let sha256 = item.unchanged, item.bytes > 0, let known = stored[entry.path],
                known.status == ImportStatus.imported.rawValue
            else { continue }
            see(entry.path, bytes: sha256, content: known.contentSha256)
        }
        // So does the old part of a log that grew: a copy of it as the ledger held it (`server.jsonl.1.gz` made before
        // `server.jsonl` grew) is still a copy, not a file of new records (its lines twice, its rejections paged again).
        for (number, entry) in entries.enumerated() {
            guard let item = files[number], item.grown != nil, let known = stored[entry.path] else { continue }
            see(entry.path, bytes: known.sha256, content: known.contentSha256)
        }
    }

    /// `path` holds these bytes and content, unless a path seen before does.
    private func see(_ path: String, bytes: String, content: String) {
        bytesSeen[bytes] = bytesSeen[bytes] ?? path
        recordsSeen[content] = recordsSeen[content] ?? path
    }

    /// Brings one entry into the ledger (inside its group's transaction, if any); a ledger found inconsistent about
    /// the entry's file is said with its repair (`inconsistent(_:_:)`), never as SQLite's error.
    func bring(_ number: Int) throws {
        do {
            try bringOne(number)
        } catch let error as SQLiteError where error.isConstraint {
            throw LedgerImporter.inconsistent(entries[number].path, "a line of it would be stored twice (\(error.message))")
        } catch let error as LedgerInconsistency {
            throw LedgerImporter.inconsistent(error.path, error.detail)
        }
    }

    private func bringOne(_ number: Int) throws {
        guard let item = files[number] else { return try bringSkipped(entries[number]) }
        if let sha256 = item.unchanged { return try bringUnchanged(item, sha256: sha256) }
        if let grown = item.grown, try bringGrown(number, item, grown) { return }
        try bringWhole(number, item)
    }

    /// An entry the collector skipped: stored as skipped, with its reason (a path that cannot be read is kept as it was:
    /// see `unreadable`).
    private func bringSkipped(_ entry: InputEntry) throws {
        if unreadable[entry.path] != nil { return }
        let file = InputFile(path: entry.path, data: Data(), sha256: Digest.sha256Hex(Data()))
        try importer.storeIfChanged(
            ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: entry.skipReason!), stored)
        if stored[entry.path]?.given == false { try store.markFile(path: entry.path, stamp: nil, contentSha256: nil) }
    }

    /// Imported before as it is: kept, unless an earlier file now has the same content.
    private func bringUnchanged(_ item: LedgerImporter.PlannedFile, sha256: String) throws {
        let entry = item.entry
        let content = stored[entry.path]!.contentSha256
        if item.bytes > 0,
            let earlier = [bytesSeen[sha256], recordsSeen[content]].compactMap({ $0 }).first(where: { $0 != entry.path })
        {
            let file = InputFile(path: entry.path, mapped: try MappedFile(path: entry.path), sha256: sha256)
            if keptPaths.contains(earlier) { copiedAs[earlier] = copiedAs[earlier] ?? entry.path }
            try importer.storeIfChanged(
                ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: LedgerImporter.copyNote(earlier)),
                stored)
            try store.markFile(path: entry.path, stamp: item.stamp, contentSha256: content)
        } else {
            // A copy kept as it was (`isHeldCopy`) holds no record: it is no file's original.
            if stored[entry.path]!.status == ImportStatus.imported.rawValue {
                (bytesSeen[sha256], recordsSeen[content]) = (entry.path, entry.path)
            }
            try importer.mark(entry.path, item.stamp, content: content, wrote: false, stored)
        }
    }

    /// A log that only grew: its new part appended. False: the ledger took nothing of it (the file is read whole).
    private func bringGrown(_ number: Int, _ item: LedgerImporter.PlannedFile, _ grown: GrownFile) throws -> Bool {
        let entry = item.entry
        var part = try grown.part(of: entry.path, scratch: importer.scratch)
        part.limits = importer.limits
        let added = try store.appendStreaming(
            path: entry.path, sha256: grown.sha256, bytes: grown.bytes, fromLine: grown.oldLines + 1, metrics: importer.metrics,
            progress: { [progress] in
                progress.update(file: number + 1, path: entry.path, offset: max(0, $0 - grown.oldLines), records: $1)
            },
            read: { [importer] in
                importer.redactingNote(
                    try FileImporter.stream(
                        part, checker: importer.checker, sink: importer.redacting($0), scratchDirectory: importer.scratchDirectory))
            })
        guard let added else { return false }
        progress.finish(fileBytes: grown.newBytes)
        (bytesSeen[grown.sha256], recordsSeen[grown.contentSha256]) = (entry.path, entry.path)
        read[entry.path] = LedgerImporter.FileRead(fromLine: grown.oldLines + 1, rejected: Int64(added.recordsRejected))
        try importer.mark(entry.path, item.stamp, content: grown.contentSha256, wrote: true, stored)
        return true
    }

    /// A new or changed file: skipped as a copy of a content seen, else read whole.
    private func bringWhole(_ number: Int, _ item: LedgerImporter.PlannedFile) throws {
        let entry = item.entry
        let next = try item.grown.map { (file: $0.whole, sha256: $0.sha256) } ?? hashes.next()
        var file = InputFile(path: entry.path, mapped: next.file, sha256: next.sha256)
        file.limits = importer.limits
        // A gzip file's content is its inflated bytes: a gzipped copy of a file is that file (inflated within the
        // limits: a bomb stops in seconds, and is hashed as it is on disk).
        let content =
            try GzipInput.wholeContent(of: next.file.data, path: entry.path, directory: importer.scratch, limits: importer.limits)
            .map { Digest.sha256Hex($0) }
            ?? file.sha256
        // Empty files are each "empty file" (FileImporter), not copies of one another.
        if file.bytes > 0, let earlier = bytesSeen[file.sha256] ?? recordsSeen[content] {
            if keptPaths.contains(earlier) { copiedAs[earlier] = copiedAs[earlier] ?? entry.path }
            let wrote = try importer.storeIfChanged(
                ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: LedgerImporter.copyNote(earlier)),
                stored)
            try importer.mark(entry.path, item.stamp, content: content, wrote: wrote, stored)
            return
        }
        bytesSeen[file.sha256] = entry.path
        defer { progress.finish(fileBytes: file.bytes) }
        try readWhole(number, item, file, content: content)
    }

    /// Reads `file` whole into the ledger and notes what it read; a file whose records it emptied is said pending at once.
    private func readWhole(_ number: Int, _ item: LedgerImporter.PlannedFile, _ file: InputFile, content: String) throws {
        let (entry, importer, stored) = (item.entry, importer, stored)
        // A file read again whole (a log whose last line was being written, a CSV log with a rejection near its old
        // end) has its old rejected lines again: they alerted the night they came, only the others are this run's.
        let rejectedBefore = (stored[entry.path]?.recordsRejected ?? 0) > 0 ? try store.rejectedLines(path: entry.path) : []
        let result = try store.importStreaming(
            path: file.path, metrics: importer.metrics,
            progress: { [progress] in progress.update(file: number + 1, path: file.path, offset: $0, records: $1) },
            read: {
                importer.redactingNote(
                    try FileImporter.stream(
                        file, checker: importer.checker, sink: importer.redacting($0), scratchDirectory: importer.scratchDirectory))
            },
            keep: { importer.isUnchanged($0, stored) },
            then: { try importer.mark(entry.path, item.stamp, content: content, wrote: true, stored) })
        if let result {
            if rejectedBefore.isEmpty || result.recordsRejected == 0 {
                read[entry.path] = LedgerImporter.FileRead(fromLine: 1, rejected: Int64(result.recordsRejected))
            } else {
                let new = try store.rejectedLines(path: entry.path).subtracting(rejectedBefore)
                let lines = Set(new.compactMap { Int($0.prefix { $0 != "\t" }) })
                read[entry.path] = LedgerImporter.FileRead(fromLine: 1, rejected: Int64(new.count), newRejectedLines: lines)
            }
        }
        if let result, let before = stored[entry.path], before.recordsImported > 0, result.recordsImported == 0 {
            emptied.append((entry.path, file.bytes, before.recordsImported, before.contentSha256))
            let said = emptied.map { LedgerImporter.emptied($0.path, bytes: $0.bytes, held: $0.held) }
            try store.setRunParameter(PendingWarnings.parameter, PendingWarnings.encode(importer.pending + said))
        }
        if (result?.status ?? .skipped) == .imported { recordsSeen[content] = entry.path }
        if result == nil { try importer.mark(entry.path, item.stamp, content: content, wrote: false, stored) }
    }
}
