import Foundation
import IAPAuditModel

/// Parses one batch of JSON Lines records on every core: the batch is cut into one slice per core,
/// each slice read into its own `RecordBatch` (in line order) by that core's `LineRecordReader`.
package final class BatchParser {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Wall seconds spent in `parse` so far (for the benchmark's phase timings).
    package static let parseSeconds = SecondsCounter()
    /// Lines the fast path handed to the strict reader so far (for the benchmark's phase timings).
    package static let strictLineCount = SecondsCounter()

    private let readers: [LineRecordReader]

    init(shape: RecordShape, file: InputFile, checker: any SignatureChecking, fastPath: Bool = true) {
        readers = (0..<Self.cores).map { _ in LineRecordReader(shape: shape, file: file, checker: checker, fastPath: fastPath) }
    }

    /// The records of `lines` (ranges of `bytes`), one batch per slice, in line order.
    func parse(_ lines: [InputFile.LineRange], bytes: UnsafePointer<UInt8>) -> [RecordBatch] {
        let started = Date()
        defer { Self.parseSeconds.add(Date().timeIntervalSince(started)) }
        let slices = lines.count < 256 ? 1 : readers.count
        let size = (lines.count + slices - 1) / slices
        let parts = UnsafeMutableBufferPointer<RecordBatch>.allocate(capacity: slices)
        parts.initialize(repeating: RecordBatch())
        defer { parts.deinitialize().deallocate() }
        let work = SliceWork(parts: parts, readers: readers, bytes: bytes)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let range = min(lines.count, slice * size)..<min(lines.count, (slice + 1) * size)
            var batch = RecordBatch()
            let reader = work.readers[slice]
            for line in lines[range] { reader.read(line, bytes: work.bytes, into: &batch) }
            batch.encodeFacts()
            work.parts[slice] = batch
        }
        Self.strictLineCount.add(Double(readers.reduce(0) { $0 + $1.takeStrictLines() }))
        return Array(parts)
    }

    /// Each slice writes only its own element and uses only its own reader.
    private struct SliceWork: @unchecked Sendable {
        let parts: UnsafeMutableBufferPointer<RecordBatch>
        let readers: [LineRecordReader]
        let bytes: UnsafePointer<UInt8>
    }
}
