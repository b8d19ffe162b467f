import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel

/// Maps the files to import and computes their SHA-256s in order on their own thread, so that a file
/// is hashed while the one before it is imported (the hash keys the import, and costs about a second
/// per 2 GB). At most `window` files are mapped ahead: a folder of 100,000 notification files never
/// holds 100,000 mappings (the kernel allows about 65,000).
final class HashPrefetcher {
    /// Files mapped and hashed ahead of the importer.
    static let window = 4

    typealias Prefetched = Result<(file: MappedFile, sha256: String), any Error>
    private let ready = Channel<Prefetched>(capacity: window)
    private let thread: Background?

    /// - Parameter paths: the files in the order `next()` will be asked for them.
    init(_ paths: [String]) {
        guard !paths.isEmpty else {
            thread = nil
            return
        }
        let ready = ready
        thread = Background {
            for path in paths {
                let item = Prefetched {
                    let mapped = try MappedFile(path: path)
                    return (mapped, Digest.sha256Hex(mapped))
                }
                guard ready.send(item) else { return }  // the run stopped asking
            }
        }
    }

    /// Stops the thread (a run that failed midway asks for no more files).
    deinit {
        ready.close()
        try? thread?.wait()
    }

    /// The next file, mapped, with its hash (waits until it is computed). Throws
    /// `AuditError.unreadablePath` when the file cannot be opened or mapped.
    func next() throws -> (file: MappedFile, sha256: String) {
        guard let item = ready.receive() else { preconditionFailure("asked for more files than given") }
        return try item.get()
    }
}
