import Foundation
import IAPAuditModel
import Synchronization

/// Facts by partition, appended to one file and kept from run to run: the request stage's carry
/// (`RequestCarry`) keeps the complete requests' outputs in it. Each partition's facts are stretches of the
/// file (`Segment`s), held in memory up to a budget before they are written. Thread-safe.
final class CarryLog: Sendable {
    /// A stretch of the file holding facts of one partition.
    struct Segment: Codable, Equatable, Sendable {
        var offset: Int
        var count: Int
    }

    /// Where the file ends, each partition's stretches, and what is still in memory (under the lock).
    private struct State {
        var memory = Array(repeating: [UInt8](), count: FactKey.partitions)
        var memoryBytes = 0
        var segments = Array(repeating: [Segment](), count: FactKey.partitions)
        var end = 0
    }

    private let state = Mutex(State())
    private let fd: Int32
    let path: String
    private let budget: Int

    /// Opens (or makes) `path`, keeping its first `kept.length` bytes and their `kept.segments` (by partition;
    /// nil: an empty log). Bytes past them, written by a run that did not finish, are cut off.
    /// - Throws: when the file cannot be opened or is shorter than `kept.length`.
    init(path: String, keeping kept: (length: Int, segments: [[Segment]])?, budget: Int) throws {
        self.path = path
        self.budget = budget
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure(path) }
        var info = stat()
        let length = kept?.length ?? 0
        guard fstat(fd, &info) == 0, Int(info.st_size) >= length, ftruncate(fd, off_t(length)) == 0 else {
            let failure = Self.failure(path)
            close(fd)
            throw failure
        }
        if let kept, kept.segments.count == FactKey.partitions {
            state.withLock { ($0.segments, $0.end) = (kept.segments, length) }
        }
    }

    deinit { close(fd) }

    /// The system's error (`errno`) about `path`, as the run says it (a full disk as one: `DiskFull`).
    static func failure(_ path: String) -> AuditError {
        AuditError.output(
            path, String(cString: strerror(errno)) + " (what the next run need not compute again; deleting the folder is safe)")
    }

    /// Appends facts to partition `part`.
    func append(_ part: Int, _ bytes: [UInt8]) throws {
        try state.withLock { state in
            state.memory[part].append(contentsOf: bytes)
            state.memoryBytes += bytes.count
            if state.memoryBytes > budget { try writeOut(&state) }
        }
    }

    /// Writes every partition held in memory at the end of the file, in one write.
    private func writeOut(_ state: inout State) throws {
        var buffer = [UInt8]()
        buffer.reserveCapacity(state.memoryBytes)
        for part in state.memory.indices where !state.memory[part].isEmpty {
            state.segments[part].append(Segment(offset: state.end + buffer.count, count: state.memory[part].count))
            buffer.append(contentsOf: state.memory[part])
            state.memory[part] = []
        }
        try buffer.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(state.end + done))
                guard n > 0 else { throw Self.failure(path) }
                done += n
            }
        }
        state.end += buffer.count
        state.memoryBytes = 0
    }

    /// Adds every fact of partition `part` to `bytes` (as facts naming their own files).
    func read(_ part: Int, into bytes: PartitionBytes) throws {
        let (segments, memory) = state.withLock { ($0.segments[part], $0.memory[part]) }
        for segment in segments {
            let buffer = try [UInt8](unsafeUninitializedCapacity: segment.count) { raw, initialized in
                while initialized < segment.count {
                    let n = pread(fd, raw.baseAddress! + initialized, segment.count - initialized, off_t(segment.offset + initialized))
                    guard n > 0 else {
                        throw n == 0 ? CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path]) : Self.failure(path)
                    }
                    initialized += n
                }
            }
            buffer.withUnsafeBytes { bytes.append($0, fileId: 0) }
        }
        memory.withUnsafeBytes { bytes.append($0, fileId: 0) }
    }

    /// Writes what memory holds; returns the file's length and segments.
    func flush() throws -> (length: Int, segments: [[Segment]]) {
        try state.withLock { state in
            if state.memoryBytes > 0 { try writeOut(&state) }
            return (state.end, state.segments)
        }
    }

    /// Makes what is written durable (fsync).
    func sync() throws {
        guard fsync(fd) == 0 else { throw Self.failure(path) }
    }
}
