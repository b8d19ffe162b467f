import Foundation
import IAPAuditModel

/// The ledger's reconciliation facts as the store keeps them (table `fact_chunk`), for `Reconciler`.
/// One statement serves every thread, one partition read at a time.
final class StoreFactSource: FactSource, @unchecked Sendable {
    let files: [(id: UInt32, path: String)]
    private let lock = NSLock()
    private let database: SQLiteDatabase
    private let chunks: SQLiteStatement

    init(_ database: SQLiteDatabase) throws {
        self.database = database
        var files: [(UInt32, String)] = []
        let list = try database.prepare("SELECT file_id, path FROM source_file ORDER BY path")
        while try list.step() { files.append((UInt32(list.int64(0)), list.text(1))) }
        self.files = files
        chunks = try database.prepare("SELECT file_id, data FROM fact_chunk WHERE stream = ?1 AND part = ?2 ORDER BY chunk_id")
    }

    func forEachChunk(_ stream: FactStream, part: Int, _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void) throws {
        try lock.withLock {
            try chunks.bind([Int64(stream.rawValue), Int64(part)])
            defer { chunks.reset() }
            while try chunks.step() { try body(UInt32(chunks.int64(0)), chunks.blob(1)) }
        }
    }
}
