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
    func importEntries(_ entries: [InputEntry]) throws -> Int {
        let stored = try store.storedFiles()
        var parsed = 0
        var contentSeen: [String: String] = [:]
        for entry in entries {
            if let reason = entry.skipReason {
                let file = InputFile(path: entry.path, data: Data())
                try storeIfChanged(ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: reason), stored)
                continue
            }
            guard let data = FileManager.default.contents(atPath: entry.path) else {
                throw AuditError.unreadablePath(entry.path, "cannot read the file")
            }
            let file = InputFile(path: entry.path, data: data)
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
            if try storeIfChanged(FileImporter.read(file, checker: checker), stored) { parsed += 1 }
        }
        let given = Set(entries.map(\.path))
        for path in stored.keys.sorted() where !given.contains(path) { try store.removeFile(path: path) }
        return parsed
    }

    /// Skipped and rejected files are classified again on every run (cheap), but stored only when
    /// the outcome changed, so a re-run leaves the database as it was.
    @discardableResult
    private func storeIfChanged(_ file: ImportedFile, _ stored: [String: StoredFile]) throws -> Bool {
        if file.status != .imported, let previous = stored[file.path], previous.isCurrentReader,
            previous == StoredFile(sha256: file.sha256, note: file.note, status: file.status.rawValue)
        {
            return false
        }
        try store.store(file)
        return true
    }
}
