import Foundation

/// Work spread over every core (Dispatch's `concurrentPerform`), its results in index order.
package enum Parallel {
    /// The cores work is spread over.
    package static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// `body(i)` for every `i` in `0..<count`, concurrently; the results in index order. Rethrows the
    /// error of the lowest index that threw (every index still runs to its end).
    ///
    /// `body` is called from several threads at once: it must touch only what index `i` owns (its
    /// slice of the input, its own reader) and thread-safe shared state. This is the one place the
    /// compiler is told to trust that (`Unchecked`): the callers' bodies are written to it.
    package static func map<T>(_ count: Int, _ body: (Int) throws -> T) throws -> [T] {
        guard count > 0 else { return [] }
        let results = UnsafeMutableBufferPointer<Result<T, Error>?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        withoutActuallyEscaping(body) { body in
            let shared = Unchecked((body, results))
            // Iteration i writes only slot i.
            DispatchQueue.concurrentPerform(iterations: count) { i in shared.value.1[i] = Result { try shared.value.0(i) } }
        }
        return try results.map { try $0!.get() }
    }
}

/// A value handed to other threads whose safety the compiler cannot see: every use says why it is
/// safe (one owner at a time, or index-disjoint writes).
package struct Unchecked<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
