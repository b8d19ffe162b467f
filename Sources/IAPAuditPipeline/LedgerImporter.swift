import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Brings the store's ledger in line with the input entries of this run: reads new and changed
/// files, keeps unchanged ones, removes files no longer given.
struct LedgerImporter {
    let store: AuditStore
    /// Checks the signatures of JWS and receipt records.
    var checker: any SignatureChecking = NoSignatureChecking()
    /// Read every file again (the trust anchors or check time changed since the stored import).
    var rereadAll = false
    /// The run's import metrics.
    var metrics = ImportMetrics()
    /// Where gzip inputs are inflated (unlinked temporary files); nil: `TMPDIR`.
    var scratchDirectory: String? = nil
    /// `--redact-ledger`: each batch's ids become tokens before it is stored (`RecordBatch.redactIds`).
    var redactor: IdRedactor? = nil

    /// Returns how many files were (re)stored: new or changed. Throws `AuditError.unreadablePath` for a file that
    /// cannot be read, or `SQLiteError`.
    /// Inputs at least this large (bytes, all files) are imported with the secondary indexes dropped.
    static let bulkBytes: Int64 = 64 << 20

    /// Leaves the secondary indexes dropped after a bulk import (`bulk` true): the caller makes them
    /// again with `AuditStore.endBulkImport` (a run killed before gets them back when the store is
    /// next opened). A bulk import is one that reads at least `bulkBytes`, and at least half of the
    /// ledger's bytes (rebuilding the indexes costs the whole ledger). Any import that changes the ledger
    /// drops `trace`'s indexes (the next `trace` makes them).
    ///
    /// `vanished`: a warning for each file the ledger held records of that is not among the entries (its
    /// records, and rejections, are removed with it).
    func importEntries(_ entries: [InputEntry]) throws -> (parsed: Int, bulk: Bool, vanished: [RunWarning]) {
        let stored = try store.storedFiles()
        // Which files may be unchanged (same path, size and reader): hashed now. The others are read
        // anyway: hashed on another thread while the files before them are imported.
        // Per entry: nil = skipped; else its size and, when it is unchanged, its hash. Files are
        // mapped only while hashed here, and again one window at a time by the prefetcher.
        var files: [(entry: InputEntry, bytes: Int64, unchanged: String?)?] = []
        var totalBytes: Int64 = 0
        var importBytes: Int64 = 0
        for entry in entries {
            guard entry.skipReason == nil else {
                files.append(nil)
                continue
            }
            let bytes = try Self.size(of: entry.path)
            totalBytes += bytes
            if !rereadAll, let previous = stored[entry.path], previous.bytes == bytes, previous.isCurrentReader,
                previous.status == ImportStatus.imported.rawValue,
                Digest.sha256Hex(try MappedFile(path: entry.path)) == previous.sha256
            {
                files.append((entry, bytes, previous.sha256))
                continue
            }
            importBytes += bytes
            files.append((entry, bytes, nil))
        }
        let hashes = HashPrefetcher(files.compactMap { $0?.unchanged == nil ? $0?.entry.path : nil })
        let bulk = importBytes >= Self.bulkBytes && importBytes * 2 >= totalBytes
        let given = Set(entries.map(\.path))
        let gone = stored.keys.sorted().filter { !given.contains($0) }
        if bulk {
            try store.beginBulkImport()
        } else if files.contains(where: { $0.map { $0.unchanged == nil } ?? false }) || !gone.isEmpty {
            try store.dropTraceIndexes()
        }
        let progress = ImportProgress(totalBytes: importBytes, fileCount: entries.count)
        var parsed = 0
        var contentSeen: [String: String] = [:]
        /// Brings one entry into the ledger (inside its group's transaction, if any).
        func bring(_ number: Int) throws {
            let entry = entries[number]
            guard let item = files[number] else {
                let file = InputFile(path: entry.path, data: Data(), sha256: Digest.sha256Hex(Data()))
                try storeIfChanged(
                    ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: entry.skipReason!), stored)
                return
            }
            if let sha256 = item.unchanged {
                // Imported before as it is: kept, unless an earlier file now has the same content.
                if item.bytes > 0, let earlier = contentSeen[sha256] {
                    let file = InputFile(path: entry.path, mapped: try MappedFile(path: entry.path), sha256: sha256)
                    try storeIfChanged(
                        ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: Self.copyNote(earlier)), stored)
                } else {
                    contentSeen[sha256] = entry.path
                }
                return
            }
            let next = try hashes.next()
            let file = InputFile(path: entry.path, mapped: next.file, sha256: next.sha256)
            // Empty files are each "empty file" (FileImporter), not copies of one another.
            if file.bytes > 0, let earlier = contentSeen[file.sha256] {
                try storeIfChanged(
                    ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: Self.copyNote(earlier)), stored)
                return
            }
            contentSeen[file.sha256] = entry.path
            defer { progress.finish(fileBytes: file.bytes) }
            let result = try store.importStreaming(
                path: file.path, metrics: metrics,
                progress: { progress.update(file: number + 1, path: file.path, offset: $0, records: $1) },
                read: { try FileImporter.stream(file, checker: checker, sink: redacting($0), scratchDirectory: scratchDirectory) },
                keep: { isUnchanged($0, stored) })
            if result != nil { parsed += 1 }
        }
        // A big file is its own transaction; small ones and skipped ones share a group's (an unchanged
        // file writes nothing: it counts as no bytes).
        for group in ImportGroups.of(files.map { $0.map { $0.unchanged == nil ? $0.bytes : 0 } ?? 0 }) {
            if group.count == 1 && group.isLarge {
                try bring(group.first)
            } else {
                try store.transaction { for number in group.range { try bring(number) } }
            }
        }
        progress.end()
        // Files no longer given leave in groups too (one commit per 256, not one each).
        for start in stride(from: 0, to: gone.count, by: ImportGroups.maxFiles) {
            try store.transaction {
                for path in gone[start..<min(gone.count, start + ImportGroups.maxFiles)] { try store.removeFile(path: path) }
            }
        }
        return (parsed, bulk, gone.compactMap { Self.vanished($0, stored[$0]!) })
    }

    /// The warning for a file of the last run that is not given this run, when records leave the ledger with
    /// it (a skipped or empty file leaves nothing behind: no warning).
    static func vanished(_ path: String, _ file: StoredFile) -> RunWarning? {
        let (imported, rejected) = (file.recordsImported, file.recordsRejected)
        guard imported + rejected > 0 else { return nil }
        let removed =
            imported > 0
            ? "its \(CountText.counted(imported, "record"))\(rejected > 0 ? " (and \(CountText.grouped(rejected)) rejected)" : "")"
            : "its \(CountText.counted(rejected, "rejected record"))"
        return RunWarning(
            .inputVanished,
            "\(path): not given this run: \(removed) \(imported + rejected == 1 ? "was" : "were") removed from the ledger "
                + "(it was imported on the last run into this folder)", file: path)
    }

    /// `sink`, or under `--redact-ledger` a sink that redacts each batch's ids before handing it on.
    private func redacting(_ sink: RecordSink) -> RecordSink {
        guard let redactor else { return sink }
        let redacted = RecordSink(metrics: sink.metrics) { batch in
            var batch = batch
            batch.redactIds(with: redactor)
            try sink.write(batch)
        }
        redacted.progress = sink.progress
        return redacted
    }

    private static func copyNote(_ earlier: String) -> String { "same content as \(earlier) (not counted twice)" }

    /// The size in bytes of the file at `path`. Throws `AuditError.unreadablePath`.
    private static func size(of path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw AuditError.unreadablePath(path, String(cString: strerror(errno))) }
        return Int64(info.st_size)
    }

    /// Skipped and rejected files are classified again on every run (cheap), but stored only when
    /// the outcome changed, so a re-run leaves the database as it was.
    private func isUnchanged(_ file: ImportedFile, _ stored: [String: StoredFile]) -> Bool {
        guard file.status != .imported, let previous = stored[file.path], previous.isCurrentReader else { return false }
        return previous == StoredFile(sha256: file.sha256, note: file.note, status: file.status.rawValue)
    }

    @discardableResult
    private func storeIfChanged(_ file: ImportedFile, _ stored: [String: StoredFile]) throws -> Bool {
        if isUnchanged(file, stored) { return false }
        try store.store(file)
        return true
    }
}

/// Consecutive small files imported in one SQLite transaction (`AuditStore.transaction`, each file a
/// savepoint inside it): a folder of 70,000 notification files costs a few hundred commits instead of
/// 70,000 (about 1.4 ms each, for the journal's create, fsync and delete). A group closes at `maxFiles`
/// files or `maxBytes` of input, and before a file of `maxBytes` or more (its own transaction).
struct ImportGroups {
    static let maxFiles = 256
    static let maxBytes: Int64 = 8 << 20

    /// Entries `range` of the input; `isLarge`: one file of `maxBytes` or more.
    struct Group {
        var range: Range<Int>
        var isLarge: Bool
        var first: Int { range.lowerBound }
        var count: Int { range.count }
    }

    /// The groups of entries written `sizes` bytes each, in order.
    static func of(_ sizes: [Int64]) -> [Group] {
        var groups: [Group] = []
        var start = 0
        var bytes: Int64 = 0
        for (i, size) in sizes.enumerated() {
            if size >= maxBytes {
                if start < i { groups.append(Group(range: start..<i, isLarge: false)) }
                groups.append(Group(range: i..<(i + 1), isLarge: true))
                (start, bytes) = (i + 1, 0)
                continue
            }
            if i - start >= maxFiles || bytes + size > maxBytes {
                groups.append(Group(range: start..<i, isLarge: false))
                (start, bytes) = (i, 0)
            }
            bytes += size
        }
        if start < sizes.count { groups.append(Group(range: start..<sizes.count, isLarge: false)) }
        return groups
    }
}
