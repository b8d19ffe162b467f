import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Brings the input entries of this run into the store's ledger, which only grows: reads new and changed
/// files (a file whose content the ledger holds already, under another path or gzipped, adds nothing: it
/// is skipped as a copy), keeps unchanged ones (not hashed again while their size, modification time and
/// inode match), and keeps the records of files no longer given (`forgetMissing`: removes them).
struct LedgerImporter {
    let store: AuditStore
    /// Checks the signatures of JWS and receipt records.
    var checker: any SignatureChecking = NoSignatureChecking()
    /// Read every file again (the trust anchors or check time changed since the stored import).
    var rereadAll = false
    /// `--reread`: the paths read again whole from their first line, whatever the ledger holds of them (the repair of a
    /// ledger found inconsistent: `inconsistent(_:_:)`).
    var reread: Set<String> = []
    /// The run's import metrics.
    var metrics = ImportMetrics()
    /// Where gzip inputs are inflated (unlinked temporary files); nil: `TMPDIR`.
    var scratchDirectory: String? = nil
    /// What is read of each file (`--limit`): past a limit, the rest of a file is one rejection.
    var limits = InputLimits()
    /// Read again the files cut at a limit (their note names one): the limits differ from the last run's.
    var rereadCut = false
    /// Remove the files the ledger holds that this run was not given (`--forget-missing`); else they are kept.
    var forgetMissing = false
    /// `--redact-ledger`: each batch's ids become tokens before it is stored (`RecordBatch.redactIds`).
    var redactor: IdRedactor? = nil
    /// The warnings a run that did not complete left pending (`PendingWarnings`): a file emptied is added to them in
    /// the transaction that removes its records, so that a kill right after cannot lose what it alerts on.
    var pending: [RunWarning] = []

    /// Returns how many files were (re)stored: new or changed. Throws `AuditError.unreadablePath` for a file that
    /// cannot be read, or `SQLiteError`.
    /// Inputs at least this large (bytes, all files) are imported with the secondary indexes dropped.
    static let bulkBytes: Int64 = 64 << 20

    /// What a run read of one file: from which line (1, or a grown log's first new line), and the lines it rejected.
    struct FileRead: Sendable, Equatable {
        var fromLine: Int
        var rejected: Int64
        /// Of a file read again whole that held rejected lines, the rejected lines it did not hold before (line numbers);
        /// nil: every rejected line from `fromLine` on is this run's.
        var newRejectedLines: Set<Int>? = nil
    }

    /// Leaves the secondary indexes dropped after a bulk import (`bulk` true): the caller makes them
    /// again with `AuditStore.endBulkImport` (a run killed before gets them back when the store is
    /// next opened). A bulk import is one that reads at least `bulkBytes`, and at least half of the
    /// ledger's bytes (rebuilding the indexes costs the whole ledger). Any import that changes the ledger
    /// drops `trace`'s indexes (the next `trace` makes them).
    ///
    /// `vanished`: a warning for each file the ledger holds records of that the last run was given and this
    /// one is not (its records are kept), or, with `forgetMissing`, that left the ledger with its records. `read`: what
    /// the run read of each file it read (`parsed` of them). `stored`: the ledger's files before the import, under the
    /// paths that hold them now (renamed and rotated files followed).
    func importEntries(_ entries: [InputEntry]) throws -> (
        parsed: Int, bulk: Bool, vanished: [RunWarning], read: [String: FileRead], stored: [String: StoredFile]
    ) {
        let (renamedStored, renamed) = try renamingMoved(entries, try store.storedFiles())
        let (stored, rotated) = try followingRotation(entries, renamedStored)
        PhaseTimer.checkpoint("import_rotation")
        let (files, totalBytes, importBytes) = try plan(entries, stored)
        let hashes = HashPrefetcher(files.compactMap { $0?.unchanged == nil && $0?.grown == nil ? $0?.entry.path : nil })
        let bulk = importBytes >= Self.bulkBytes && importBytes * 2 >= totalBytes
        // A path given that cannot be read (a dangling symbolic link where the file was, a loop, a FIFO) is no file:
        // the ledger keeps what it held, as for one no longer given, even under --forget-missing (it was given).
        var unreadable: [String: String] = [:]
        for entry in entries {
            if let why = entry.skipReason, let known = stored[entry.path], Self.keeps(known) { unreadable[entry.path] = why }
        }
        let given = Set(entries.map(\.path)).subtracting(unreadable.keys)
        let gone = stored.keys.sorted().filter { !given.contains($0) }
        if bulk {
            try store.beginBulkImport()
        } else if files.contains(where: { $0.map { $0.unchanged == nil } ?? false }) || (forgetMissing && !gone.isEmpty) {
            try store.dropTraceIndexes()
        }
        if !bulk && importBytes > 0 { try store.setCache(kibibytes: AuditStore.incrementCacheKiB) }
        let keeping = gone.filter { forgetMissing ? unreadable[$0] != nil : Self.keeps(stored[$0]!) }
        let round = ImportRound(
            importer: self, entries: entries, files: files, stored: stored, unreadable: unreadable, keptPaths: Set(keeping),
            hashes: hashes, progress: ImportProgress(totalBytes: importBytes, fileCount: entries.count))
        round.seeHeld(keeping)
        // A big file is its own transaction; small ones and skipped ones share a group's (an unchanged
        // file writes nothing: it counts as no bytes).
        for group in ImportGroups.of(files.map { $0.map { $0.unchanged == nil ? $0.bytes : 0 } ?? 0 }) {
            if group.count == 1 && group.isLarge {
                try round.bring(group.first)
            } else {
                try store.transaction { for number in group.range { try round.bring(number) } }
            }
        }
        round.progress.end()
        let newlyMissing = try leave(gone, keeping: keeping, stored)
        // A file emptied whose old content another file of this run holds (logrotate's copytruncate, run before the
        // log had a new line: server.log emptied, server.log.1 what it held) lost nothing.
        let lost = round.emptied.filter { file in round.recordsSeen[file.content].map { $0 == file.path } ?? true }
        return (
            round.read.count, bulk,
            renamed + rotated + lost.map { Self.emptied($0.path, bytes: $0.bytes, held: $0.held) }
                + gone.compactMap { path in
                    let why: Vanished = round.keptPaths.contains(path) ? .kept : forgetMissing ? .forgotten : .otherReader
                    return why == .kept && !newlyMissing.contains(path) && unreadable[path] == nil
                        ? nil : Self.vanished(path, stored[path]!, why, copy: round.copiedAs[path], unreadable: unreadable[path])
                }, round.read, stored
        )
    }

    /// One input entry as planned: nil, skipped; else its size (bytes), its stat, and its SHA-256 when it is unchanged, or
    /// its old part when it only grew.
    typealias PlannedFile = (entry: InputEntry, bytes: Int64, stamp: FileStamp, unchanged: String?, grown: GrownFile?)

    /// Which files may be unchanged (same path, size and reader): hashed now. The others are read anyway: hashed on another
    /// thread while the files before them are imported. Files are mapped only while hashed here, and again one window at a
    /// time by the prefetcher. Returns a plan per entry, the bytes of all files, and the bytes the import reads.
    private func plan(_ entries: [InputEntry], _ stored: [String: StoredFile]) throws -> (
        files: [PlannedFile?], totalBytes: Int64, importBytes: Int64
    ) {
        var files: [PlannedFile?] = []
        var totalBytes: Int64 = 0
        var importBytes: Int64 = 0
        for entry in entries {
            guard entry.skipReason == nil else {
                files.append(nil)
                continue
            }
            let stamp = try Self.stamp(of: entry.path)
            let bytes = stamp.bytes
            totalBytes += bytes
            // Unchanged: the same size and reader, and the same stat (git's index check) or else the same hash.
            let rereading = rereadAll || reread.contains(entry.path)
            if !rereading, let previous = stored[entry.path], previous.bytes == bytes, previous.isCurrentReader,
                !(rereadCut && previous.note.contains(" limit")),
                previous.status == ImportStatus.imported.rawValue || Self.isHeldCopy(previous, stored),
                try (stamp.isKnown && previous.stamp == stamp) || Digest.sha256Hex(MappedFile(path: entry.path)) == previous.sha256
            {
                files.append((entry, bytes, stamp, previous.sha256, nil))
                continue
            }
            // Only grown: read from its old end (the old part checked against its stored hash).
            if !rereading, let previous = stored[entry.path],
                let grown = try GrownFile(
                    path: entry.path, bytes: bytes, previous: previous, inflating: (scratch, limits),
                    rejectedSince: { try store.hasRejections(path: entry.path, fromLine: $0) })
            {
                importBytes += Int64(grown.newBytes)
                files.append((entry, bytes, stamp, nil, grown))
                continue
            }
            importBytes += bytes
            files.append((entry, bytes, stamp, nil, nil))
        }
        return (files, totalBytes, importBytes)
    }

    /// Files no longer given: kept (marked, warned about the first time), or leaving in groups (one commit per 256, not
    /// one each). Returns the kept files the last run was given (newly missing).
    private func leave(_ gone: [String], keeping: [String], _ stored: [String: StoredFile]) throws -> [String] {
        let keptPaths = Set(keeping)
        let leaving = gone.filter { !keptPaths.contains($0) }
        for start in stride(from: 0, to: leaving.count, by: ImportGroups.maxFiles) {
            try store.transaction {
                for path in leaving[start..<min(leaving.count, start + ImportGroups.maxFiles)] { try store.removeFile(path: path) }
            }
        }
        let newlyMissing = keeping.filter { stored[$0]!.given }
        try store.markMissing(newlyMissing)
        return newlyMissing
    }

    /// Records the file's stat, content hash and that it was given, unless the ledger says so already (a
    /// re-run writes nothing). A stamp unknown when stored (the file then being fresh) is stored once a run finds
    /// the file old enough for its stat to be trusted: that run hashed it, the following ones do not. `wrote`: the
    /// file's row was just (re)written.
    func mark(_ path: String, _ stamp: FileStamp, content: String, wrote: Bool, _ stored: [String: StoredFile]) throws {
        if !wrote, let previous = stored[path], previous.given, previous.contentSha256 == content,
            previous.stamp == stamp || (previous.stamp?.isKnown == false && !stamp.isKnown)
        {
            return
        }
        try store.markFile(path: path, stamp: stamp, contentSha256: content)
    }

    /// Where gzip inputs are inflated to hash their content.
    var scratch: String { scratchDirectory ?? String(NSTemporaryDirectory().reversed().drop { $0 == "/" }.reversed()) }

    /// `sink`, or under `--redact-ledger` a sink that redacts each batch's ids before handing it on.
    func redacting(_ sink: RecordSink) -> RecordSink {
        guard let redactor else { return sink }
        let redacted = RecordSink(metrics: sink.metrics) { batch in
            var batch = batch
            batch.redactIds(with: redactor)
            try sink.write(batch)
        }
        redacted.progress = sink.progress
        return redacted
    }

    /// A file's note as a redacted ledger keeps it: a list of object keys it gives not shown (`IdRedactor.keysRedacted`).
    func redactingNote(_ file: ImportedFile) -> ImportedFile {
        guard redactor != nil else { return file }
        var file = file
        file.note = IdRedactor.keysRedacted(file.note)
        return file
    }

    static func copyNote(_ earlier: String) -> String { copyNoteStart + earlier + copyNoteEnd }
    private static let (copyNoteStart, copyNoteEnd) = ("same content as ", " (not counted twice)")

    /// A file skipped as a copy of one the ledger still holds: unchanged, it stays a copy, though its original has grown
    /// since (`server.jsonl.1.gz` of Monday's `server.jsonl`: imported as new records once the log had grown twice).
    static func isHeldCopy(_ file: StoredFile, _ stored: [String: StoredFile]) -> Bool {
        guard file.status == ImportStatus.skipped.rawValue, file.note.hasPrefix(copyNoteStart), file.note.hasSuffix(copyNoteEnd)
        else { return false }
        let original = String(file.note.dropFirst(copyNoteStart.count).dropLast(copyNoteEnd.count))
        return stored[original].map { $0.status == ImportStatus.imported.rawValue && $0.recordsImported + $0.recordsRejected > 0 } ?? false
    }

    /// A file modified this recently (nanoseconds) is hashed by the next run whatever its stat says: a write in
    /// the same tick of the file system's clock as the stat would leave the modification time as it was
    /// (git's "racily clean" files).
    static let racyNs: Int64 = 2_000_000_000

    /// The size, modification time and inode of the file at `path` (modification time and inode 0: modified
    /// in the last `racyNs`, not to be trusted). Throws `AuditError.unreadablePath`.
    static func stamp(of path: String) throws -> FileStamp {
        var info = stat()
        guard stat(path, &info) == 0 else { throw AuditError.unreadablePath(path, String(cString: strerror(errno))) }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let racy = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - modified < racyNs
        return FileStamp(bytes: Int64(info.st_size), modifiedNs: racy ? 0 : modified, inode: racy ? 0 : Int64(info.st_ino))
    }

    /// Skipped and rejected files are classified again on every run (cheap), but stored only when
    /// the outcome changed, so a re-run leaves the database as it was.
    func isUnchanged(_ file: ImportedFile, _ stored: [String: StoredFile]) -> Bool {
        guard file.status != .imported, let previous = stored[file.path], previous.isCurrentReader else { return false }
        return previous == StoredFile(sha256: file.sha256, note: file.note, status: file.status.rawValue)
    }

    @discardableResult
    func storeIfChanged(_ file: ImportedFile, _ stored: [String: StoredFile]) throws -> Bool {
        if isUnchanged(file, stored) { return false }
        try store.store(file)
        return true
    }
}
