import Foundation

/// Where streamed records go (the store's writer for the file being imported).
package final class RecordSink {
    package let write: (RecordBatch) throws -> Void
    /// Told after each batch: bytes of the file read so far, records so far.
    package var progress: ((_ offset: Int, _ records: Int) -> Void)?
    package init(_ write: @escaping (RecordBatch) throws -> Void) { self.write = write }
}

/// A thread-safe running total of seconds.
package final class SecondsCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0.0
    package init() {}
    package func add(_ seconds: Double) { lock.withLock { total += seconds } }
    package var value: Double { lock.withLock { total } }
}
