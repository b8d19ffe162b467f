import Foundation
import IAPAuditModel
import Synchronization

/// Facts by partition, appended to one file and kept from run to run: the request stage's carry
/// (`RequestCarry`) keeps the complete requests' outputs in it. Each partition's facts are stretches of the
/// file (`Segment`s), held in memory up to a budget before they are written. Thread-safe.
final class CarryLog: Sendable {
    /// A stretch of the file holding facts of one partition, and the checksum of its bytes (`checksum`).
    struct Segment: Codable, Equatable, Sendable {
        var offset: Int
        var count: Int
        var check: UInt64
    }

    /// A stretch whose bytes are not those written (a damaged disk, a hand's edit): what the log holds cannot be used.
    struct Damaged: Error {}

    /// A 64-bit checksum of `bytes`, eight at a time (a changed, lost or swapped byte changes it).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var at = 0
        while at + 8 <= bytes.count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            at += 8
        }
        while at < bytes.count {
            h = (h ^ UInt64(bytes[at])) &* 0x94D0_49BB_1331_11EB
            at += 1
        }
        return FactKey.mix(h)
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
        if let kept {
            guard kept.segments.count == FactKey.partitions,
                kept.segments.joined().allSatisfy({ $0.offset >= 0 && $0.count >= 0 && $0.offset <= kept.length - $0.count })
            else { throw Damaged() }
        }
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure(path) }
        var info = stat()
        let length = kept?.length ?? 0
        guard fstat(fd, &info) == 0, Int(info.st_size) >= length, ftruncate(fd, off_t(length)) == 0 else {
            let failure = Self.failure(path)
            close(fd)
            throw failure
        }
        if let kept { state.withLock { ($0.segments, $0.end) = (kept.segments, length) } }
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
            let check = state.memory[part].withUnsafeBytes { Self.checksum($0) }
            state.segments[part].append(Segment(offset: state.end + buffer.count, count: state.memory[part].count, check: check))
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
            try buffer.withUnsafeBytes {
                guard Self.checksum($0) == segment.check else { throw Damaged() }
                bytes.append($0, fileId: 0)
            }
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
