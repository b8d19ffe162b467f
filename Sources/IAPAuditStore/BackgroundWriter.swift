import Foundation
import IAPAuditModel

/// Writes batches on its own thread so that parsing the next batch overlaps storing this one; at
/// most `depth` batches wait (memory stays bounded). The first write error is kept: later batches
/// are dropped and `submit`/`drain` throw it. The database is used by this thread alone until
/// `drain` returns.
package final class BackgroundWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "iap-audit.sqlite-writer")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var failure: Error?
    nonisolated(unsafe) private let write: (RecordBatch) throws -> Void

    /// Seconds the writer thread spent writing so far (for the benchmark's phase timings).
    package static let busySeconds = SecondsCounter()

    init(depth: Int = 2, write: @escaping (RecordBatch) throws -> Void) {
        slots = DispatchSemaphore(value: depth)
        self.write = write
    }

    private var firstFailure: Error? { lock.withLock { failure } }

    /// Queues a batch; throws an earlier batch's write error.
    func submit(_ batch: RecordBatch) throws {
        if let error = firstFailure { throw error }
        slots.wait()
        queue.async {
            defer { self.slots.signal() }
            guard self.firstFailure == nil else { return }
            let started = Date()
            defer { BackgroundWriter.busySeconds.add(Date().timeIntervalSince(started)) }
            do {
                try self.write(batch)
            } catch {
                self.lock.withLock { self.failure = self.failure ?? error }
            }
        }
    }

    /// Waits until every queued batch is written; throws the first write error.
    func drain() throws {
        queue.sync {}
        if let error = firstFailure { throw error }
    }
}
