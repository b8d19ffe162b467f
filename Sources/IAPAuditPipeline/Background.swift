import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Work started on another thread now and waited for later; `wait` rethrows its error.
final class Background: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: Error?

    init(_ work: @escaping () throws -> Void) {
        let body = UncheckedWork(work)
        Thread.detachNewThread { [self] in
            do { try body.run() } catch { failure = error }
            done.signal()
        }
    }

    /// Blocks until the work has finished; throws what it threw.
    func wait() throws {
        done.wait()
        done.signal()  // a second wait returns at once
        if let failure { throw failure }
    }

    /// The work runs on one thread, once.
    private struct UncheckedWork: @unchecked Sendable {
        let run: () throws -> Void
        init(_ run: @escaping () throws -> Void) { self.run = run }
    }
}
