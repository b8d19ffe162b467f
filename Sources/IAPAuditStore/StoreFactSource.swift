import Foundation
import IAPAuditModel
import Synchronization

/// The ledger's reconciliation facts as the store keeps them (table `fact_chunk`), for `Reconciler`.
/// One connection and statement serve every thread, one partition read at a time (under the lock).
/// Every chunk is checked against its `checksum` before its bytes are handed on: one that fails throws `LedgerDamage`.
final class StoreFactSource: FactSource {
    let files: [(id: UInt32, path: String)]
    private let paths: [UInt32: String]
    let filesDeleted: Int64
    /// The read-only connection and its chunk queries, used under the lock only.
    private let reader: Mutex<(database: SQLiteDatabase, chunks: SQLiteStatement, after: SQLiteStatement, marks: SQLiteStatement)>

    init(_ database: sending SQLiteDatabase) throws {
        var files: [(UInt32, String)] = []
        let list = try database.prepare("SELECT file_id, path FROM source_file ORDER BY path")
        while try list.step() {
            guard let id = UInt32(exactly: list.int64(0)) else {
                throw LedgerDamage(
                    table: "source_file", row: list.int64(0), fileId: list.int64(0), path: list.text(1), why: "has a file id out of range")
            }
            files.append((id, list.text(1)))
        }
        self.files = files
        paths = Dictionary(files, uniquingKeysWith: { a, _ in a })
        let deleted = try database.prepare("SELECT value FROM ledger_schema WHERE name = ?1")
        deleted.bind([Schema.filesDeletedKey])
        filesDeleted = try deleted.step() ? Int64(deleted.text(0)) ?? -1 : 0
        let chunks = try database.prepare(
            "SELECT file_id, data, chunk_id, checksum FROM fact_chunk WHERE stream = ?1 AND part = ?2 ORDER BY chunk_id")
        let after = try database.prepare(
            "SELECT file_id, data, chunk_id, checksum FROM fact_chunk WHERE stream = ?1 AND part = ?2 AND chunk_id > ?3 ORDER BY chunk_id"
        )
        // length() of a blob reads its size from the record header, not its pages.
        let marks = try database.prepare(
            "SELECT chunk_id, file_id, part, length(data) FROM fact_chunk WHERE stream = ?1 AND chunk_id <= ?2 ORDER BY chunk_id")
        reader = Mutex((database, chunks, after, marks))
    }

    func forEachChunk(_ stream: FactStream, part: Int, _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void) throws {
        try reader.withLock { reader in
            let chunks = reader.chunks
            chunks.bind([Int64(stream.rawValue), Int64(part)])
            defer { chunks.reset() }
            while try chunks.step() { try body(try checked(chunks, stream, part), chunks.blob(1)) }
        }
    }

    func forEachChunk(
        _ stream: FactStream, part: Int, after: Int64, _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try reader.withLock { reader in
            let chunks = reader.after
            chunks.bind([Int64(stream.rawValue), Int64(part), after])
            defer { chunks.reset() }
            while try chunks.step() { try body(try checked(chunks, stream, part), chunks.blob(1)) }
        }
    }

    /// The file id of the chunk at `row` (columns file_id, data, chunk_id, checksum) once its bytes match its checksum.
    private func checked(_ row: SQLiteStatement, _ stream: FactStream, _ part: Int) throws -> UInt32 {
        let fileId = row.int64(0)
        try LedgerDamage.check(
            chunk: row.int64(2), fileId: fileId, stream: Int64(stream.rawValue), part: Int64(part), data: row.blob(1),
            stored: row.int64(3), path: UInt32(exactly: fileId).flatMap { paths[$0] } ?? "")
        // A file id beyond UInt32 cannot pass the checksum it was stored with (the checksum covers it).
        return UInt32(truncatingIfNeeded: fileId)
    }

    func chunkMark(_ stream: FactStream, upTo: Int64?) throws -> ChunkMark? {
        try reader.withLock { reader in
            let marks = reader.marks
            marks.bind([Int64(stream.rawValue), upTo ?? Int64.max])
            defer { marks.reset() }
            var mark: ChunkMark?
            var digest: UInt64 = 0xCBF2_9CE4_8422_2325
            while try marks.step() {
                for column: Int32 in 0..<4 {
                    withUnsafeBytes(of: marks.int64(column).littleEndian) {
                        for byte in $0 { digest = (digest ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                    }
                }
                mark = ChunkMark(highWater: marks.int64(0), digest: digest)
            }
            return mark
        }
    }
}
