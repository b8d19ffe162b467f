import Foundation

/// Brings the store's ledger in line with the input entries of this run: reads new and changed
/// files, keeps unchanged ones, removes files no longer given.
struct LedgerImporter {
    let store: AuditStore
    /// Checks the signatures of JWS and receipt records.
    var checker: any SignatureChecking = NoSignatureChecking()
    /// Read every file again (the trust anchors or check time changed since the stored import).
    var rereadAll = false

    /// Returns how many files were (re)stored: new or changed. Throws `AuditError.unreadablePath` for a file that
    /// cannot be read, or `SQLiteError`.
    /// Inputs at least this large (bytes, all files) are imported with the secondary indexes dropped.
    static let bulkBytes: Int64 = 64 << 20

    /// Leaves the secondary indexes dropped after a bulk import (`bulk` true): the caller makes them
    /// again with `AuditStore.endBulkImport` (a run killed before gets them back when the store is
    /// next opened). A bulk import is one that reads at least `bulkBytes`, and at least half of the
    /// ledger's bytes (rebuilding the indexes costs the whole ledger).
    func importEntries(_ entries: [InputEntry]) throws -> (parsed: Int, bulk: Bool) {
        let stored = try store.storedFiles()
        // Which files may be unchanged (same path, size and reader): hashed now. The others are read
        // anyway: hashed on another thread while the files before them are imported.
        var files: [(entry: InputEntry, mapped: MappedFile?, sha256: String?)] = []
        var totalBytes: Int64 = 0
        var importBytes: Int64 = 0
        for entry in entries {
            guard entry.skipReason == nil else {
                files.append((entry, nil, nil))
                continue
            }
            let mapped = try MappedFile(path: entry.path)
            totalBytes += Int64(mapped.count)
            var sha256: String? = nil
            if !rereadAll, let previous = stored[entry.path], previous.bytes == mapped.count, previous.isCurrentReader,
                previous.status == ImportStatus.imported.rawValue
            {
                sha256 = InputFile.sha256Hex(mapped)
                if sha256 == previous.sha256 {
                    files.append((entry, mapped, sha256))
                    continue
                }
            }
            importBytes += Int64(mapped.count)
            files.append((entry, mapped, sha256))
        }
        let hashes = HashPrefetcher(files.compactMap { $0.sha256 == nil ? $0.mapped : nil })
        let bulk = importBytes >= Self.bulkBytes && importBytes * 2 >= totalBytes
        if bulk { try store.beginBulkImport() }
        let progress = ImportProgress(totalBytes: importBytes, fileCount: entries.count)
        var parsed = 0
        var contentSeen: [String: String] = [:]
        for (number, (entry, mapped, known)) in files.enumerated() {
            guard let mapped else {
                let file = InputFile(path: entry.path, data: Data())
                try storeIfChanged(
                    ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: entry.skipReason!), stored)
                continue
            }
            let file = InputFile(path: entry.path, mapped: mapped, sha256: known ?? hashes.next())
            // Empty files are each "empty file" (FileImporter), not copies of one another.
            if file.bytes > 0, let earlier = contentSeen[file.sha256] {
                let note = "same content as \(earlier) (not counted twice)"
                try storeIfChanged(ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: note), stored)
                continue
            }
            contentSeen[file.sha256] = entry.path
            if !rereadAll, let previous = stored[entry.path], previous.sha256 == file.sha256, previous.isCurrentReader,
                previous.status == ImportStatus.imported.rawValue
            {
                continue
            }
            defer { progress.finish(fileBytes: file.bytes) }
            let result = try store.importStreaming(
                path: file.path, progress: { progress.update(file: number + 1, path: file.path, offset: $0, records: $1) },
                read: { try FileImporter.stream(file, checker: checker, sink: $0) },
                keep: { isUnchanged($0, stored) })
            if result != nil { parsed += 1 }
        }
        progress.end()
        let given = Set(entries.map(\.path))
        for path in stored.keys.sorted() where !given.contains(path) { try store.removeFile(path: path) }
        return (parsed, bulk)
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
