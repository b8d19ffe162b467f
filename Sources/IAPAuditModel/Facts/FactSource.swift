/// Where reconciliation reads its facts: the store's `fact_chunk` table, or a ledger held in memory.
package protocol FactSource: AnyObject, Sendable {
    /// The input files facts refer to, by file id, in ledger order (their rank is their position).
    var files: [(id: UInt32, path: String)] { get }

    /// Calls `body` with every chunk of one partition of a stream: the file it belongs to and its
    /// bytes (valid during the call). Safe to call from several threads.
    func forEachChunk(_ stream: FactStream, part: Int, _ body: (_ fileId: UInt32, _ bytes: UnsafeRawBufferPointer) throws -> Void)
        throws

    /// How many times a stored file's rows (and facts) were deleted from the ledger: read again, or removed.
    var filesDeleted: Int64 { get }

    /// Like `forEachChunk`, only the chunks stored after chunk `after` (chunk ids grow as chunks are added).
    func forEachChunk(
        _ stream: FactStream, part: Int, after: Int64, _ body: (_ fileId: UInt32, _ bytes: UnsafeRawBufferPointer) throws -> Void
    ) throws

    /// The newest chunk of a stream up to `upTo` (nil: every chunk) and a digest of those chunks (each one's id, file,
    /// partition and byte count, in id order): a stream whose chunks were deleted or replaced since gives another
    /// digest. Nil when the stream has no chunk.
    func chunkMark(_ stream: FactStream, upTo: Int64?) throws -> ChunkMark?
}

/// Where a stream's chunks stood (`FactSource.chunkMark`).
package struct ChunkMark: Equatable, Codable, Sendable {
    /// The newest chunk's id.
    package var highWater: Int64
    /// FNV-1a over (id, file, partition, byte count) of every chunk up to `highWater`, in id order.
    package var digest: UInt64

    package init(highWater: Int64, digest: UInt64) { (self.highWater, self.digest) = (highWater, digest) }
}
