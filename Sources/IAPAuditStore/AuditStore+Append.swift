import Foundation
import IAPAuditModel

extension AuditStore {
    /// The file stored under `path` grew (a log still being written; its old part checked unchanged by the
    /// caller): `read` reads only the part after the old end, whose records continue the file's line numbers,
    /// and they are added to the file's (records, rejections, fact chunks, its summary fact merged), in one
    /// transaction. `sha256` and `bytes` are the whole file's now.
    ///
    /// Returns the part's result, or nil — nothing written — when the part was not taken for what the file was
    /// (another kind, format or note, or not imported): the caller reads the file whole. Throws
    /// `LedgerInconsistency` when the ledger holds a line of the file at `fromLine` or after (its stored size covers
    /// fewer lines than it stored: the part's lines would be stored twice).
    package func appendStreaming(
        path: String, sha256: String, bytes: Int, fromLine: Int, metrics: ImportMetrics = ImportMetrics(),
        progress: ((Int, Int) -> Void)? = nil,
        read: (RecordSink) throws -> ImportedFile
    ) throws -> ImportedFile? {
        struct Different: Error {}
        do {
            return try database.transaction {
                let find = try database.prepare("SELECT file_id, kind, format, note FROM source_file WHERE path = ?1")
                find.bind([path])
                guard try find.step() else { throw Different() }
                let (fileId, kind, format, note) = (find.int64(0), find.text(1), find.text(2), find.text(3))
                let last = try lastStoredLine(fileId: fileId)
                if last >= fromLine {
                    throw LedgerInconsistency(
                        path: path, detail: "its stored size ends at line \(fromLine - 1), but the ledger holds its line \(last)")
                }
                var previous = FileFacts()
                let summaries = try database.prepare(
                    "SELECT data, chunk_id, checksum, part FROM fact_chunk WHERE file_id = ?1 AND stream = ?2 ORDER BY chunk_id")
                summaries.bind([fileId, Int64(FactStream.summary.rawValue)])
                while try summaries.step() {
                    let raw = summaries.blob(0)
                    try LedgerDamage.check(
                        chunk: summaries.int64(1), fileId: fileId, stream: Int64(FactStream.summary.rawValue), part: summaries.int64(3),
                        data: raw, stored: summaries.int64(2), path: path)
                    guard raw.count > 0 else { continue }
                    previous.add(try FileFacts.decoded(raw, chunk: summaries.int64(1), fileId: fileId, path: path))
                }
                let writer = try RecordWriter(database: database, fileId: fileId)
                let part = try Self.stream(into: writer, metrics: metrics, progress: progress, read: read)
                guard part.status == .imported, part.kind.rawValue == kind, part.format.rawValue == format, part.note == note else {
                    throw Different()
                }
                try database.prepare("DELETE FROM fact_chunk WHERE file_id = ?1 AND stream = ?2").run([
                    fileId, Int64(FactStream.summary.rawValue),
                ])
                try writer.finish(after: previous)
                try database.prepare(
                    """
                    UPDATE source_file SET sha256 = ?2, bytes = ?3, content_sha256 = NULL, records_in = records_in + ?4,
                        records_imported = records_imported + ?5, records_rejected = records_rejected + ?6
                    WHERE file_id = ?1
                    """
                ).run([fileId, sha256, bytes, part.recordsIn, part.recordsImported, part.recordsRejected])
                return part
            }
        } catch is Different {
            return nil
        }
    }

    /// The last line of the file stored under `path` the ledger holds a record or a rejection of (0: none, or no such file).
    package func lastStoredLine(path: String) throws -> Int {
        let find = try database.prepare("SELECT file_id FROM source_file WHERE path = ?1")
        find.bind([path])
        return try find.step() ? lastStoredLine(fileId: find.int64(0)) : 0
    }

    /// The last line of file `fileId` the ledger holds a record or a rejection of (0: none).
    func lastStoredLine(fileId: Int64) throws -> Int {
        var last: Int64 = 0
        for table in RecordTables.deleteFileRows.compactMap({ $0.split(separator: " ").dropFirst(2).first }) {
            last = max(
                last,
                try database.scalar(
                    "SELECT coalesce(max(record_id) & 4294967295, 0) FROM \(table) "
                        + "WHERE record_id BETWEEN \(fileId) << 32 AND (\(fileId) << 32) | 4294967295"))
        }
        return Int(max(last, try database.scalar("SELECT coalesce(max(line), 0) FROM rejection WHERE file_id = \(fileId)")))
    }

    /// Runs `read` with a sink whose batches `writer` stores on its own thread (parsing overlaps writing), and
    /// returns its result once every batch is written. Rethrows `read`'s and the writer's errors (the writer is
    /// done by then: the caller's transaction may roll back).
    static func stream(
        into writer: RecordWriter, metrics: ImportMetrics, progress: ((Int, Int) -> Void)?, read: (RecordSink) throws -> ImportedFile
    ) throws -> ImportedFile {
        let background = BackgroundWriter(metrics: metrics) { try writer.write($0) }
        let sink = RecordSink(metrics: metrics) { try background.submit($0) }
        sink.progress = progress
        do {
            let file = try read(sink)
            try background.drain()
            return file
        } catch {
            try? background.drain()  // the writer must be done before the rollback
            throw error
        }
    }
}

/// The ledger disagrees with itself about the file stored under `path` (`detail`: how): its records cannot be added
/// to. A run reading the file again whole (`--reread`) replaces them.
package struct LedgerInconsistency: Error {
    package var path: String
    package var detail: String
}
