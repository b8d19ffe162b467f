import Foundation
import IAPAuditModel

/// Chunks held in memory (a ledger built in code, small inputs).
final class MemoryFactSource: FactSource, @unchecked Sendable {
    let files: [(id: UInt32, path: String)]
    private var chunks: [Int: [(UInt32, [UInt8])]] = [:]

    init(files: [(id: UInt32, path: String)]) { self.files = files }

    /// Adds the facts of file `fileId`.
    func add(_ set: FactSet, fileId: UInt32) {
        var set = set
        for (stream, part, bytes) in set.take(atLeast: 1) { chunks[FactSet.index(stream, part), default: []].append((fileId, bytes)) }
        chunks[FactSet.index(.summary, 0), default: []].append((fileId, set.summary.encoded()))
    }

    func forEachChunk(_ stream: FactStream, part: Int, _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void) throws {
        for (fileId, bytes) in chunks[FactSet.index(stream, part)] ?? [] { try bytes.withUnsafeBytes { try body(fileId, $0) } }
    }
}

extension MemoryFactSource {
    /// The facts of a ledger built in code (tests, small tools): its records in the order given,
    /// each file numbered by the order of its path.
    convenience init(ledger: Ledger) {
        var paths = Set<String>()
        for r in ledger.clientReports { paths.insert(r.location.file) }
        for r in ledger.serverRequests { paths.insert(r.location.file) }
        for r in ledger.appleRecords { paths.insert(r.location.file) }
        let sorted = paths.sorted()
        self.init(files: sorted.enumerated().map { (UInt32($0.offset + 1), $0.element) })
        var batches: [String: RecordBatch] = [:]
        for r in ledger.clientReports { batches[r.location.file, default: RecordBatch()].append(r) }
        for r in ledger.serverRequests { batches[r.location.file, default: RecordBatch()].append(r) }
        for r in ledger.appleRecords { batches[r.location.file, default: RecordBatch()].append(r, keepRaw: false) }
        for (rank, path) in sorted.enumerated() {
            var set = FactSet()
            FactEncoder.add(batches[path]!, to: &set)
            add(set, fileId: UInt32(rank + 1))
        }
    }
}
