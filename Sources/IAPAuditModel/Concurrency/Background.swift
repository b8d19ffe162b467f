import Foundation
import Synchronization

/// Work started on a thread of its own now and waited for later; `wait` rethrows its error.
///
/// The work and what it captures belong to that thread until `wait` returns (the caller does not touch
/// them meanwhile): that is why it may capture what is not `Sendable` (a SQLite writer, a closure).
package final class Background: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    package init(_ work: @escaping () throws -> Void) {
        let handed = Unchecked(work)  // owned by the new thread until `wait` returns
        Thread.detachNewThread { [self] in
            do { try handed.value() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
    }

    /// Blocks until the work has finished; throws what it threw. May be called again (returns at once).
    package func wait() throws {
        done.wait()
        done.signal()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// A first-in first-out queue between threads holding at most `capacity` items: `send` waits while it
/// is full, `receive` while it is empty. Once closed, `send` drops what it is given and `receive`
/// returns what is left, then nil.
package final class Channel<Item: Sendable>: Sendable {
    private let state = Mutex<(items: [Item], closed: Bool)>(([], false))
    /// Counts free places; and, once closed, wakes a waiting sender.
    private let free: DispatchSemaphore
    /// Counts items; and, once closed, wakes a waiting receiver.
    private let filled = DispatchSemaphore(value: 0)

    package init(capacity: Int) {
        // Made at 0 and raised to `capacity`: libdispatch traps when a semaphore is freed holding less than
        // the value it was made with, which a channel dropped with items queued (a run that failed while
        // files were prefetched) would.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { free.signal() }
    }

    /// Queues `item`; false (and the item dropped) when the channel is closed.
    @discardableResult
    package func send(_ item: Item) -> Bool {
        free.wait()
        let accepted = state.withLock { state in
            if state.closed { return false }
            state.items.append(item)
            return true
        }
        if accepted { filled.signal() } else { free.signal() }  // closed: wake the next sender too
        return accepted
    }

    /// The next item; nil once the channel is closed and empty.
    package func receive() -> Item? {
        filled.wait()
        let item: Item? = state.withLock { $0.items.isEmpty ? nil : $0.items.removeFirst() }
        if item == nil { filled.signal() } else { free.signal() }  // closed: wake the next receiver too
        return item
    }

    /// No more items: senders give up, receivers get what is left.
    package func close() {
        state.withLock { $0.closed = true }
        filled.signal()
        free.signal()
    }
}
