import IAPAuditModel

/// A stored value the ledger cannot vouch for: a `fact_chunk` row whose bytes fail their checksum
/// (`FactChecksum.chunk`, column `checksum`) or whose facts cannot be decoded. The run stops on it (exit 1); nothing
/// read from the row is used (docs/security.md, A damaged ledger).
package struct LedgerDamage: Error, CustomStringConvertible {
    /// The table and its row (`chunk_id` for `fact_chunk`).
    package let table: String
    package let row: Int64
    /// The input file the row holds the facts or a record of (`source_file.file_id`, its path; "" when unknown).
    package let fileId: Int64
    package let path: String
    /// What is wrong with the row: "fails its checksum", "cannot be decoded".
    package let why: String

    /// The row's key in a table keyed by text (`finding_id` of `finding`, `finding_action`): named instead of `row`.
    package var key: String? = nil

    package init(table: String = "fact_chunk", row: Int64, fileId: Int64, path: String, why: String) {
        (self.table, self.row, self.fileId, self.path, self.why) = (table, row, fileId, path, why)
    }

    /// A row of a table of the run's own (`finding`, `finding_action`), named by its key: it holds no input file's records.
    package init(table: String, key: String, why: String) {
        (self.table, self.row, self.fileId, self.path, self.why, self.key) = (table, 0, 0, "", why, key)
    }

    package var description: String {
        if let key { return "damaged ledger: \(table) row \(key.controlCharactersEscaped) \(why)" }
        return "damaged ledger: \(table) row \(row) (\(table == "fact_chunk" ? "facts of" : "read from") "
            + "\(path.isEmpty ? "file id \(fileId)" : path)) \(why)"
    }

    /// Checks a `fact_chunk` row's bytes against its stored checksum; throws `LedgerDamage` naming it.
    static func check(
        chunk: Int64, fileId: Int64, stream: Int64, part: Int64, data: UnsafeRawBufferPointer, stored: Int64,
        path: @autoclosure () -> String
    ) throws {
        guard FactChecksum.chunk(data, fileId: fileId, stream: stream, part: part) == stored else {
            throw LedgerDamage(row: chunk, fileId: fileId, path: path(), why: "fails its checksum")
        }
    }
}

extension FileFacts {
    /// The summary stored in a `fact_chunk` row (`raw`, its checksum already checked); throws `LedgerDamage` naming the
    /// row when it cannot be decoded.
    static func decoded(_ raw: UnsafeRawBufferPointer, chunk: Int64, fileId: Int64, path: String) throws -> FileFacts {
        do {
            return try FileFacts(decoding: raw, fileId: UInt32(truncatingIfNeeded: fileId))
        } catch {
            throw LedgerDamage(row: chunk, fileId: fileId, path: path, why: "cannot be decoded")
        }
    }
}

extension AuditStore {
    /// Marks the file whose stored facts are damaged (`source_file.file_id` `fileId`) to be read again by the next run
    /// given it (its `reader_version` set to 0: not the current reader's): that run replaces its records and facts; a
    /// run not given it drops them. Returns its path and whether the run that met the damage was given it; nil when the
    /// ledger holds no such file. Opens its own connection (the run's is closed by then).
    package static func markForReading(databasePath: String, fileId: Int64) throws -> (path: String, given: Bool)? {
        let database = try SQLiteDatabase(path: databasePath)
        let file = try database.prepare("SELECT path, given FROM source_file WHERE file_id = ?1")
        file.bind([fileId])
        guard try file.step() else { return nil }
        let found = (path: file.text(0), given: file.int64(1) != 0)
        try database.prepare("UPDATE source_file SET reader_version = 0 WHERE file_id = ?1").run([fileId])
        return found
    }
}
