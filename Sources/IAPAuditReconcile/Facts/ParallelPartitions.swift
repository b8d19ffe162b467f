import Foundation
import IAPAuditModel

/// Runs one piece of work per partition on every core.
enum ParallelPartitions {
    /// `body(part)` for `part` in `0..<count`, concurrently; the results in partition order.
    /// Rethrows the first error (the other partitions still run to their end).
    static func map<T>(_ count: Int, _ body: (Int) throws -> T) throws -> [T] {
        let results = Results<T>(count)
        withoutActuallyEscaping(body) { body in
            let work = Work(body: body, results: results)
            DispatchQueue.concurrentPerform(iterations: count) { part in work.results.set(part, Result { try work.body(part) }) }
            _ = work
        }
        return try results.values.map { try $0!.get() }
    }

    /// The work and its results are touched by one partition each, under a lock.
    private struct Work<T>: @unchecked Sendable {
        let body: (Int) throws -> T
        let results: Results<T>
    }

    private final class Results<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Result<T, Error>?]
        init(_ count: Int) { stored = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: Result<T, Error>) { lock.withLock { stored[i] = r } }
        var values: [Result<T, Error>?] { lock.withLock { stored } }
    }
}
