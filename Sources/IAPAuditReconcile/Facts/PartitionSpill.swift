import Foundation
import IAPAuditModel

/// Facts made during reconciliation (by the request stage, for the transaction stage), kept by
/// partition: in memory up to a budget, then appended to one file per partition in `directory`
/// (removed by `removeAll`). Thread-safe.
final class PartitionSpill: @unchecked Sendable {
    private let lock = NSLock()
    private var memory: [[UInt8]]
    private var memoryBytes = 0
    private var spilled = [Bool](repeating: false, count: FactKey.partitions)
    private let directory: String?
    private let budget: Int

    /// - Parameters:
    ///   - directory: where partitions over the budget go; nil keeps everything in memory.
    ///   - budget: bytes held in memory before they are written out.
    init(directory: String?, budget: Int = 64 << 20) {
        self.directory = directory
        self.budget = budget
        memory = Array(repeating: [], count: FactKey.partitions)
        if let directory { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    }

    private func path(_ part: Int) -> String { "\(directory!)/part-\(part)" }

    /// Appends facts to partition `part`. Throws when a spill file cannot be written.
    func append(_ part: Int, _ bytes: [UInt8]) throws {
        try lock.withLock {
            memory[part].append(contentsOf: bytes)
            memoryBytes += bytes.count
            if directory != nil && memoryBytes > budget { try writeOut() }
        }
    }

    private func writeOut() throws {
        for part in memory.indices where !memory[part].isEmpty {
            let url = URL(fileURLWithPath: path(part))
            if !spilled[part] {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)  // a failure: FileHandle below throws
                spilled[part] = true
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: memory[part])
            memory[part] = []
        }
        memoryBytes = 0
    }

    /// Adds every fact of partition `part` to `bytes` (as facts naming their own files).
    func read(_ part: Int, into bytes: PartitionBytes) throws {
        try lock.withLock {
            if spilled[part] {
                let data = try Data(contentsOf: URL(fileURLWithPath: path(part)))
                data.withUnsafeBytes { bytes.append($0, fileId: 0) }
            }
            memory[part].withUnsafeBytes { bytes.append($0, fileId: 0) }
        }
    }

    /// Removes the spill files.
    func removeAll() {
        lock.withLock {
            memory = Array(repeating: [], count: FactKey.partitions)
            guard directory != nil else { return }
            for part in spilled.indices where spilled[part] { try? FileManager.default.removeItem(atPath: path(part)) }
            spilled = [Bool](repeating: false, count: FactKey.partitions)
        }
    }
}
