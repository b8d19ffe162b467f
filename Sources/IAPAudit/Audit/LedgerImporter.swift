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
    /// next opened).
    func importEntries(_ entries: [InputEntry]) throws -> (parsed: Int, bulk: Bool) {
        let total = entries.reduce(Int64(0)) { sum, entry in
            sum + (((try? FileManager.default.attributesOfItem(atPath: entry.path))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
        let bulk = total >= Self.bulkBytes
        if bulk { try store.beginBulkImport() }
        let progress = ImportProgress(totalBytes: total, fileCount: entries.count)
        let parsed = try importEach(entries, progress)
        progress.end()
        return (parsed, bulk)
    }

    private func importEach(_ entries: [InputEntry], _ progress: ImportProgress) throws -> Int {
        let stored = try store.storedFiles()
        var parsed = 0
        var contentSeen: [String: String] = [:]
        for (number, entry) in entries.enumerated() {
            if let reason = entry.skipReason {
                let file = InputFile(path: entry.path, data: Data())
                try storeIfChanged(ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: reason), stored)
                continue
            }
            let file = InputFile(path: entry.path, mapped: try MappedFile(path: entry.path))
            defer { progress.finish(fileBytes: file.bytes) }
            if let earlier = contentSeen[file.sha256] {
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
            let result = try store.importStreaming(
                path: file.path, progress: { progress.update(file: number + 1, path: file.path, offset: $0, records: $1) },
                read: { try FileImporter.stream(file, checker: checker, sink: $0) },
                keep: { isUnchanged($0, stored) })
            if result != nil { parsed += 1 }
        }
        let given = Set(entries.map(\.path))
        for path in stored.keys.sorted() where !given.contains(path) { try store.removeFile(path: path) }
        return parsed
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
