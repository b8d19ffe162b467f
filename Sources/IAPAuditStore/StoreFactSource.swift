import Foundation
import IAPAuditModel
import Synchronization

/// The ledger's reconciliation facts as the store keeps them (table `fact_chunk`), for `Reconciler`.
/// One connection and statement serve every thread, one partition read at a time (under the lock).
final class StoreFactSource: FactSource {
    let files: [(id: UInt32, path: String)]
    /// The read-only connection and its chunk query, used under the lock only.
    private let reader: Mutex<(database: SQLiteDatabase, chunks: SQLiteStatement)>

    init(_ database: sending SQLiteDatabase) throws {
        var files: [(UInt32, String)] = []
        let list = try database.prepare("SELECT file_id, path FROM source_file ORDER BY path")
        while try list.step() { files.append((UInt32(list.int64(0)), list.text(1))) }
        self.files = files
        let chunks = try database.prepare("SELECT file_id, data FROM fact_chunk WHERE stream = ?1 AND part = ?2 ORDER BY chunk_id")
        reader = Mutex((database, chunks))
    }

    func forEachChunk(_ stream: FactStream, part: Int, _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void) throws {
        try reader.withLock { reader in
            let chunks = reader.chunks
            chunks.bind([Int64(stream.rawValue), Int64(part)])
            defer { chunks.reset() }
            while try chunks.step() { try body(UInt32(chunks.int64(0)), chunks.blob(1)) }
        }
    }
}
