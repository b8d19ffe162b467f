import Foundation
import IAPAuditModel

/// Inserts one file's rows (records, rejections, facts) batch by batch, inside the caller's transaction.
/// Statements are prepared once per file; every text is bound in place from the batch's arena.
///
/// Keys: a record's `record_id` is `file_id << 32 | line`, so a file's records are one key range
/// (deleted by range, never by scanning) and a re-run writes the same keys.
final class RecordWriter {
    let fileId: Int64
    private let records: RecordInserts
    private let rejection: SQLiteStatement
    private let chunk: SQLiteStatement
    /// Facts of the file not yet stored (flushed in chunks of about `chunkBytes`).
    private var facts = FactSet()
    static let chunkBytes = 1 << 18

    private enum RejectionColumn: Int32 { case fileId = 1, line, reason, rawText }
    private enum ChunkColumn: Int32 { case fileId = 1, stream, part, data, checksum }

    init(database: SQLiteDatabase, fileId: Int64) throws {
        self.fileId = fileId
        records = try RecordInserts(database: database)
        rejection = try database.prepare("INSERT OR REPLACE INTO rejection (file_id, line, reason, raw_text) VALUES (?1, ?2, ?3, ?4)")
        chunk = try database.prepare("INSERT INTO fact_chunk (file_id, stream, part, data, checksum) VALUES (?1, ?2, ?3, ?4, ?5)")
    }

    /// Stores the facts still held and the file's summary (call once, after the last batch); `previous`: the
    /// summary of the file's records before these (a file that grew), merged into it.
    func finish(after previous: FileFacts? = nil) throws {
        try store(facts.take(atLeast: 1))
        var summary = previous ?? FileFacts()
        summary.add(facts.summary)
        try store([(.summary, 0, summary.encoded())])
    }

    private func store(_ chunks: [(stream: FactStream, part: Int, bytes: [UInt8])]) throws {
        for c in chunks {
            chunk.resetForRow()
            chunk.bind(ChunkColumn.fileId, fileId)
            chunk.bind(ChunkColumn.stream, Int64(c.stream.rawValue))
            chunk.bind(ChunkColumn.part, Int64(c.part))
            try c.bytes.withUnsafeBytes { raw in
                chunk.bind(ChunkColumn.data, blob: raw)
                // Once per chunk (about 256 KiB), checked when the chunk is read (`StoreFactSource`).
                chunk.bind(
                    ChunkColumn.checksum, FactChecksum.chunk(raw, fileId: fileId, stream: Int64(c.stream.rawValue), part: Int64(c.part)))
                try chunk.insertRow()
            }
        }
    }

    /// Writes every row of `batch` and keeps its facts (encoded here unless the batch has them).
    /// Throws `SQLiteError`.
    func write(_ batch: RecordBatch) throws {
        if let encoded = batch.facts {
            facts.append(encoded)
        } else {
            FactEncoder.add(batch, to: &facts)
        }
        try store(facts.take(atLeast: Self.chunkBytes))
        try records.insert(batch, fileId: fileId)
        for r in batch.rejections {
            rejection.resetForRow()
            rejection.bind(RejectionColumn.fileId, fileId)
            rejection.bind(RejectionColumn.line, Int64(r.location.line))
            rejection.bind(RejectionColumn.reason, constant: r.reason)
            rejection.bind(RejectionColumn.rawText, constant: SecretRedaction.stored(r.rawText))
            try rejection.insertRow()
        }
    }
}
