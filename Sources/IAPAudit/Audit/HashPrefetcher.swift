import Foundation

/// SHA-256s of mapped files, computed in order on their own thread so that a file is hashed while
/// the one before it is imported (the hash keys the import, and costs about a second per 2 GB).
final class HashPrefetcher: @unchecked Sendable {
    private let lock = NSCondition()
    private var results: [String] = []
    private var taken = 0

    init(_ files: [MappedFile]) {
        guard !files.isEmpty else { return }
        let work = Files(files: files)
        Thread.detachNewThread { [self] in
            for file in work.files {
                let sha = InputFile.sha256Hex(file)
                lock.withLock {
                    results.append(sha)
                    lock.broadcast()
                }
            }
        }
    }

    /// The hash of the next file, in the order given (waits until it is computed).
    func next() -> String {
        lock.withLock {
            while results.count <= taken { lock.wait() }
            taken += 1
            return results[taken - 1]
        }
    }

    private struct Files: @unchecked Sendable { let files: [MappedFile] }
}
