import Foundation

/// Where streamed records go (the store's writer for the file being imported).
final class RecordSink {
    let write: (ImportedFile) throws -> Void
    /// Told after each batch: bytes of the file read so far, records so far.
    var progress: ((_ offset: Int, _ records: Int) -> Void)?
    init(_ write: @escaping (ImportedFile) throws -> Void) { self.write = write }
}

/// Parses one batch of JSON Lines records on every core: the batch is cut into one slice per core,
/// each slice parsed into its own partial result, and the partials joined in line order.
enum BatchParser {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Wall seconds spent in `parse` so far (for the benchmark's phase timings).
    static let parseSeconds = SecondsCounter()

    /// - Parameter template: the file's result so far (kind, note…); the returned batch holds only this
    ///   batch's records and rejections.
    static func parse(
        _ lines: [(number: Int, text: String)], shape: RecordShape, file: InputFile, checker: any SignatureChecking,
        template: ImportedFile
    ) -> ImportedFile {
        let started = Date()
        defer { parseSeconds.add(Date().timeIntervalSince(started)) }
        var empty = template
        empty.clientReports = []
        empty.serverRequests = []
        empty.verifyResponses = []
        empty.rejections = []
        empty.streamedImported = 0
        empty.streamedRejected = 0
        let slices = lines.count < 256 ? 1 : cores
        let size = (lines.count + slices - 1) / slices
        let parts = UnsafeMutableBufferPointer<ImportedFile>.allocate(capacity: slices)
        parts.initialize(repeating: empty)
        defer { parts.deinitialize().deallocate() }
        let work = SliceWork(parts: parts)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let range = min(lines.count, slice * size)..<min(lines.count, (slice + 1) * size)
            var part = work.parts[slice]
            for line in lines[range] {
                let location = file.location(line.number)
                do {
                    RecordDispatcher.add(
                        try ParsedRecord(jsonLine: line.text), shape: shape, raw: line.text, at: location, checker, to: &part)
                } catch {
                    part.rejections.append(Rejection(location: location, reason: "\(error)", rawText: line.text))
                }
            }
            work.parts[slice] = part
        }
        var batch = empty
        for part in parts {
            batch.clientReports += part.clientReports
            batch.serverRequests += part.serverRequests
            batch.verifyResponses += part.verifyResponses
            batch.rejections += part.rejections
        }
        return batch
    }

    /// Each slice writes only its own element.
    private struct SliceWork: @unchecked Sendable {
        let parts: UnsafeMutableBufferPointer<ImportedFile>
    }
}

/// A thread-safe running total of seconds.
final class SecondsCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0.0
    func add(_ seconds: Double) { lock.withLock { total += seconds } }
    var value: Double { lock.withLock { total } }
}
