import Foundation
import IAPAuditModel
import Synchronization

/// Writes batches on its own thread so that parsing the next batch overlaps storing this one; at
/// most `depth` batches wait (memory stays bounded). The first write error is kept: later batches
/// are dropped and `submit`/`drain` throw it. The writer (and the database it holds) belongs to the
/// writer thread until `drain` returns.
package final class BackgroundWriter: Sendable {
    /// Batches to write; closed by `drain`.
    private let queue: Channel<RecordBatch>
    private let failure: Failure
    private let thread: Background

    /// - Parameter metrics: told how long each write took (the run's phase timings).
    package init(depth: Int = 2, metrics: ImportMetrics = ImportMetrics(), write: @escaping (RecordBatch) throws -> Void) {
        // `depth` batches in all: the one being written and those waiting.
        let queue = Channel<RecordBatch>(capacity: max(1, depth - 1))
        let failure = Failure()
        self.queue = queue
        self.failure = failure
        thread = Background {
            while let batch = queue.receive() {
                guard failure.first == nil else { continue }
                let started = Date()
                do {
                    try write(batch)
                } catch {
                    failure.keep(error)
                }
                metrics.addWrite(seconds: Date().timeIntervalSince(started))
            }
        }
    }

    private var firstFailure: (any Error)? { failure.first }

    /// The first write error, shared with the writer thread.
    private final class Failure: Sendable {
        private let error = Mutex<(any Error)?>(nil)
        var first: (any Error)? { error.withLock { $0 } }
        func keep(_ e: any Error) { error.withLock { $0 = $0 ?? e } }
    }

    /// Queues a batch; throws an earlier batch's write error.
    package func submit(_ batch: RecordBatch) throws {
        if let error = firstFailure { throw error }
        queue.send(batch)
    }

    /// Waits until every queued batch is written and the thread has ended; throws the first write error.
    /// Later calls return at once (with the same error).
    package func drain() throws {
        queue.close()
        try thread.wait()
        if let error = firstFailure { throw error }
    }
}
