import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Maps the files to import and computes their SHA-256s in order on their own thread, so that a file
/// is hashed while the one before it is imported (the hash keys the import, and costs about a second
/// per 2 GB). At most `window` files are mapped ahead: a folder of 100,000 notification files never
/// holds 100,000 mappings (the kernel allows about 65,000).
final class HashPrefetcher: @unchecked Sendable {
    /// Files mapped and hashed ahead of the importer.
    static let window = 4

    private final class State: @unchecked Sendable {
        let lock = NSCondition()
        var ready: [Result<(file: MappedFile, sha256: String), Error>] = []
        var cancelled = false
    }
    private let state = State()

    /// - Parameter paths: the files in the order `next()` will be asked for them.
    init(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let state = self.state
        Thread.detachNewThread {
            for path in paths {
                let go = state.lock.withLock {
                    while state.ready.count >= Self.window && !state.cancelled { state.lock.wait() }
                    return !state.cancelled
                }
                guard go else { return }
                let item = Result { () throws -> (file: MappedFile, sha256: String) in
                    let mapped = try MappedFile(path: path)
                    return (mapped, Digest.sha256Hex(mapped))
                }
                state.lock.withLock {
                    state.ready.append(item)
                    state.lock.broadcast()
                }
            }
        }
    }

    /// Stops the thread (a run that failed midway asks for no more files).
    deinit {
        state.lock.withLock {
            state.cancelled = true
            state.ready.removeAll()
            state.lock.broadcast()
        }
    }

    /// The next file, mapped, with its hash (waits until it is computed). Throws
    /// `AuditError.unreadablePath` when the file cannot be opened or mapped.
    func next() throws -> (file: MappedFile, sha256: String) {
        let item = state.lock.withLock {
            while state.ready.isEmpty { state.lock.wait() }
            state.lock.broadcast()
            return state.ready.removeFirst()
        }
        return try item.get()
    }
}
