/// Where reconciliation reads its facts: the store's `fact_chunk` table, or a ledger held in memory.
package protocol FactSource: AnyObject, Sendable {
    /// The input files facts refer to, by file id, in ledger order (their rank is their position).
    var files: [(id: UInt32, path: String)] { get }

    /// Calls `body` with every chunk of one partition of a stream: the file it belongs to and its
    /// bytes (valid during the call). Safe to call from several threads.
    func forEachChunk(_ stream: FactStream, part: Int, _ body: (_ fileId: UInt32, _ bytes: UnsafeRawBufferPointer) throws -> Void)
        throws
}
