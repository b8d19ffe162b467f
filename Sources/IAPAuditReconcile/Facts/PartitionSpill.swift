import Foundation
import Synchronization
import IAPAuditModel

/// Facts made during reconciliation (by the request stage, for the transaction stage), kept by
/// partition: in memory up to a budget, then appended to one file per partition in `directory`
/// (removed by `removeAll`). Thread-safe.
final class PartitionSpill: Sendable {
    /// Held in memory, and which partitions have a file; changed under the lock by the partitions' threads.
    private struct State {
        var memory = Array(repeating: [UInt8](), count: FactKey.partitions)
        var memoryBytes = 0
        var spilled = [Bool](repeating: false, count: FactKey.partitions)
        /// Per partition, each stretch written to its file: its byte count and XXH64 (`FactChecksum`), checked when read.
        var written = Array(repeating: [(count: Int, check: UInt64)](), count: FactKey.partitions)
    }
    private let state = Mutex(State())
    private let directory: String?
    private let budget: Int

    /// - Parameters:
    ///   - directory: where partitions over the budget go; nil keeps everything in memory.
    ///   - budget: bytes held in memory before they are written out.
    init(directory: String?, budget: Int = 64 << 20) {
        self.directory = directory
        self.budget = budget
        if let directory { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    }

    private func path(_ part: Int) -> String { "\(directory!)/part-\(part)" }

    /// Appends facts to partition `part`. Throws when a spill file cannot be written.
    func append(_ part: Int, _ bytes: [UInt8]) throws {
        try state.withLock { state in
            state.memory[part].append(contentsOf: bytes)
            state.memoryBytes += bytes.count
            if directory != nil && state.memoryBytes > budget { try writeOut(&state) }
        }
    }

    private func writeOut(_ state: inout State) throws {
        for part in state.memory.indices where !state.memory[part].isEmpty {
            let url = URL(fileURLWithPath: path(part))
            if !state.spilled[part] {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)  // a failure: FileHandle below throws
                state.spilled[part] = true
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: state.memory[part])
            state.written[part].append((state.memory[part].count, state.memory[part].withUnsafeBytes { FactChecksum.xxh64($0) }))
            state.memory[part] = []
        }
        state.memoryBytes = 0
    }

    /// Adds every fact of partition `part` to `bytes` (as facts naming their own files). Throws `FactDecodingError` when
    /// the file is not what was written (its length, or a stretch's checksum).
    func read(_ part: Int, into bytes: PartitionBytes) throws {
        let (spilled, written, memory) = state.withLock { ($0.spilled[part], $0.written[part], $0.memory[part]) }
        if spilled {
            let data = try Data(contentsOf: URL(fileURLWithPath: path(part)))
            try data.withUnsafeBytes { raw in
                var at = 0
                for stretch in written {
                    guard stretch.count <= raw.count - at,
                        FactChecksum.xxh64(UnsafeRawBufferPointer(rebasing: raw[at..<(at + stretch.count)])) == stretch.check
                    else { break }
                    at += stretch.count
                }
                guard at == raw.count, written.reduce(0, { $0 + $1.count }) == at else {
                    throw FactDecodingError("the spill file \(path(part)) of this run")
                }
                bytes.append(raw, fileId: 0)
            }
        }
        memory.withUnsafeBytes { bytes.append($0, fileId: 0) }
    }

    /// Removes the spill files.
    func removeAll() {
        let spilled = state.withLock { state in
            defer { state = State() }
            return state.spilled
        }
        guard directory != nil else { return }
        for part in spilled.indices where spilled[part] { try? FileManager.default.removeItem(atPath: path(part)) }
    }
}
