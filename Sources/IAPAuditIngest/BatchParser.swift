import Foundation
import IAPAuditModel

/// Parses one batch of JSON Lines records on every core: the batch is cut into one slice per core,
/// each slice read into its own `RecordBatch` (in line order) by that core's `LineRecordReader`.
package final class BatchParser {
    private let readers: [LineRecordReader]
    private let metrics: ImportMetrics
    /// The first line (1-based) read as each kind of record so far: more than one shape is a mixed file.
    private(set) var shapes: [RecordShape: Int] = [:]

    init(shape: RecordShape, file: InputFile, checker: any SignatureChecking, metrics: ImportMetrics, fastPath: Bool = true) {
        readers = (0..<Parallel.cores).map { _ in LineRecordReader(shape: shape, file: file, checker: checker, fastPath: fastPath) }
        self.metrics = metrics
    }

    /// The records of `lines` (ranges of `bytes`), one batch per slice, in line order.
    func parse(_ lines: [InputFile.LineRange], bytes: UnsafePointer<UInt8>) -> [RecordBatch] {
        let started = Date()
        let slices = lines.count < 256 ? 1 : readers.count
        let size = (lines.count + slices - 1) / slices
        // Slice k reads its own lines with its own reader (readers are not shared between threads).
        // Nothing in a slice throws.
        let batches = try! Parallel.map(slices) { slice in
            let range = min(lines.count, slice * size)..<min(lines.count, (slice + 1) * size)
            var batch = RecordBatch()
            let reader = readers[slice]
            for line in lines[range] { reader.read(line, bytes: bytes, into: &batch) }
            batch.encodeFacts()
            return batch
        }
        metrics.addParse(seconds: Date().timeIntervalSince(started), strictLines: readers.reduce(0) { $0 + $1.takeStrictLines() })
        for reader in readers {
            for (shape, line) in reader.takeShapes() { shapes[shape] = min(line, shapes[shape] ?? .max) }
        }
        return batches
    }
}
