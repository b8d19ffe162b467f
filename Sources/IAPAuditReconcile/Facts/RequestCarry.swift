import Foundation
import IAPAuditModel
import Synchronization

/// The request stage's results kept from one run to the next, in a folder beside the ledger (`--out`'s
/// `.reconcile-carry`), so that a nightly run recomputes only the requests its new facts name
/// (docs/performance.md, "A nightly increment"):
///
/// - `outputs.log` (`CarryLog`): the carrier and link facts of every *complete* request (a verification line
///   and an answer), by transaction partition, as the transaction stage reads them;
/// - `requests.bin`: per request partition, the complete requests' ids (`FactKey.hash(text:)`) and the facts of
///   the open ones (not answered yet, or an answer whose line has not come), read again with the new facts;
/// - `state.json` (`State`): what they were made from.
///
/// A run uses them only when nothing they were made from changed: the same build of iap-audit, fact layout
/// and bundle ids; every request chunk of then still there as it was; the files of then in the same order;
/// the same re-delivered notifications among them. A new fact naming a complete request (a second answer,
/// another line) has the whole stage recomputed (`RequestStage`). Any doubt gives a full recompute, which
/// writes them again. The state is removed before the files change and written once they are durable: a run
/// killed between leaves none, and its next run recomputes all.
package final class RequestCarry: Sendable {
    /// What the files were made from (`state.json`).
    struct State: Codable, Equatable {
        static let format = 3
        var format = State.format
        /// `build()` of the binary that wrote them.
        var build: String
        /// The ledger's carry generation the run that wrote them set (`Generation.next`).
        var generation: UInt64
        var factLayout: UInt64
        var bundleIds: [String]
        /// The ledger's file ids in ledger order.
        var files: [UInt32]
        /// Where the `requests` stream stood (nil: no chunk), and how many times a file's rows had been deleted.
        var requests: ChunkMark?
        var filesDeleted: Int64
        /// Re-delivered notifications (`recordKey`), sorted.
        var redeliveries: [UInt64]
        /// `outputs.log`'s length and each transaction partition's stretches of it.
        var outputLength: Int
        var outputSegments: [[CarryLog.Segment]]
        /// `requests.bin`'s length and checksum (`CarryLog.checksum`).
        var requestsLength: Int
        var requestsCheck: UInt64
        /// The checksum of the state written with this 0 (sorted keys).
        var check: UInt64 = 0

        /// The state as written: JSON with sorted keys, its checksum in it.
        func encoded() throws -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var state = self
            state.check = 0
            state.check = Array(try encoder.encode(state)).withUnsafeBytes { CarryLog.checksum($0) }
            return Array(try encoder.encode(state))
        }

        /// A state as `encoded` wrote it, or nil (not JSON of one, or its checksum not its own).
        static func decoded(_ data: Data) -> State? {
            guard let state = try? JSONDecoder().decode(State.self, from: data), (try? state.encoded()) == Array(data) else { return nil }
            return state
        }
    }

    /// The ledger's carry generation (`AuditStore.carryGeneration`): the one found before this run set its own,
    /// and its own.
    package struct Generation: Sendable {
        package var previous: UInt64?
        package var next: UInt64

        package init(previous: UInt64?, next: UInt64) { (self.previous, self.next) = (previous, next) }
    }

    package enum Mode: Equatable, Sendable {
        /// Every request recomputed; why the files could not be used.
        case full(reason: String)
        /// The complete requests carried; only the chunks after `after` read, with the open requests.
        case incremental(after: Int64)
    }

    let directory: String
    let generation: UInt64
    let mode: Mode
    /// The complete requests' carrier and link facts, by transaction partition.
    let outputs: CarryLog
    /// Per request partition: the complete requests' ids and the open requests' facts, as the last run left them,
    /// then as this run leaves them.
    private let requests: Mutex<(keys: [[UInt64]], open: [[UInt8]])>

    var isIncremental: Bool { if case .incremental = mode { true } else { false } }

    private var statePath: String { directory + "/state.json" }
    private var requestsPath: String { directory + "/requests.bin" }

    /// Reads and checks the state in `directory` (removing it: the files are about to change) and opens the files.
    /// - Parameter redeliveries: this run's re-delivered notifications (`NotificationDeliveries`).
    convenience init(
        directory: String, generation: Generation, source: FactSource, bundleIds: Set<String>, redeliveries: Set<UInt64>, budget: Int
    ) throws {
        let fm = FileManager.default
        guard (try? fm.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil else {
            throw AuditError.output(directory, "cannot make the folder (what the next run need not compute again)")
        }
        let stored = fm.contents(atPath: directory + "/state.json")
        if stored != nil, unlink(directory + "/state.json") != 0 { throw CarryLog.failure(directory + "/state.json") }
        var why = fm.fileExists(atPath: directory + "/state.json") ? "its state cannot be read" : "no carry from an earlier run"
        if let stored {
            if let state = State.decoded(stored) {
                why = try Self.mismatch(state, generation.previous, source: source, bundleIds: bundleIds, redeliveries: redeliveries) ?? ""
                if why.isEmpty,
                    let requests = Self.readRequests(directory + "/requests.bin", length: state.requestsLength, check: state.requestsCheck),
                    let outputs = try? CarryLog(
                        path: directory + "/outputs.log", keeping: (state.outputLength, state.outputSegments), budget: budget)
                {
                    self.init(
                        directory: directory, generation: generation.next, outputs: outputs, requests: requests,
                        after: state.requests?.highWater ?? 0)
                    return
                }
                if why.isEmpty { why = "its files damaged or cut short" }
            } else {
                struct Format: Decodable { var format: Int }
                let format = try? JSONDecoder().decode(Format.self, from: stored).format
                why = format.map { $0 == State.format } == false ? "made in another format" : "its state is unreadable"
            }
        }
        try self.init(rebuilding: directory, generation: generation.next, reason: why, budget: budget)
    }

    private init(directory: String, generation: UInt64, outputs: CarryLog, requests: (keys: [[UInt64]], open: [[UInt8]]), after: Int64) {
        (self.directory, self.generation, self.outputs, mode) = (directory, generation, outputs, .incremental(after: after))
        self.requests = Mutex(requests)
    }

    /// Starts the files again (a new fact named a complete request: `RequestStage` recomputes every request).
    init(rebuilding directory: String, generation: UInt64, reason: String, budget: Int) throws {
        self.directory = directory
        self.generation = generation
        // What it described is about to change.
        if unlink(directory + "/state.json") != 0 && errno != ENOENT { throw CarryLog.failure(directory + "/state.json") }
        outputs = try CarryLog(path: directory + "/outputs.log", keeping: nil, budget: budget)
        requests = Mutex((Array(repeating: [], count: FactKey.partitions), Array(repeating: [], count: FactKey.partitions)))
        mode = .full(reason: reason)
    }

    /// Why `state` does not describe the ledger any more, or nil when it does.
    private static func mismatch(
        _ state: State, _ generation: UInt64?, source: FactSource, bundleIds: Set<String>, redeliveries: Set<UInt64>
    ) throws -> String? {
        guard state.format == State.format, state.outputSegments.count == FactKey.partitions else { return "made in another format" }
        guard let build else { return "this build of iap-audit cannot be identified" }
        guard state.build == build else { return "made by another build" }
        guard state.generation == generation else { return "made for another ledger, or for this one before it was rebuilt or restored" }
        // Each night adds a stretch a partition: past 64 a partition on average, the log is made again in one piece each.
        guard state.outputSegments.reduce(0, { $0 + $1.count }) <= 64 * FactKey.partitions else {
            return "its log in too many pieces"
        }
        guard state.factLayout == FactLayout.fingerprint else { return "made from another fact layout" }
        guard state.bundleIds == bundleIds.sorted() else { return "made for other bundle ids" }
        guard state.filesDeleted == source.filesDeleted else { return "files read again or removed since" }
        guard try source.chunkMark(.requests, upTo: state.requests?.highWater ?? 0) == state.requests else {
            return "request facts deleted or replaced since"
        }
        let old = Set(state.files), now = Set(source.files.map(\.id))
        guard source.files.map(\.id).filter(old.contains) == state.files.filter(now.contains) else {
            return "the files in another order since"
        }
        // A re-delivery among the files of then that was none then (a grown file's new copy coming before a later
        // file's), or one that is none now, changes which answers those requests had.
        let redelivered = redeliveries.filter { old.contains(UInt32($0 >> 32)) }.sorted()
        guard redelivered == state.redeliveries.filter({ old.contains(UInt32($0 >> 32)) }) else {
            return "other notifications re-delivered since"
        }
        return nil
    }

    /// The binary's identity: its version and the checksum of its bytes (a rebuild is another build); nil when its
    /// bytes cannot be read (no carry is then used).
    static let build: String? = {
        guard let exe = FileManager.default.contents(atPath: "/proc/self/exe") else { return nil }
        return ToolVersion.current + " " + String(exe.withUnsafeBytes { CarryLog.checksum($0) }, radix: 16)
    }()

    /// `requests.bin`: per request partition, (UInt32 count, that many UInt64 ids, UInt32 byte count, the open
    /// requests' facts as `readOpen` reads them). Nil when it is not `length` bytes of that.
    private static func readRequests(_ path: String, length: Int, check: UInt64) -> (keys: [[UInt64]], open: [[UInt8]])? {
        guard let data = FileManager.default.contents(atPath: path), data.count == length,
            data.withUnsafeBytes({ CarryLog.checksum($0) }) == check
        else { return nil }
        return data.withUnsafeBytes { raw -> (keys: [[UInt64]], open: [[UInt8]])? in
            var (keys, open, at) = ([[UInt64]](), [[UInt8]](), 0)
            func u32() -> Int? {
                guard at + 4 <= raw.count else { return nil }
                defer { at += 4 }
                return Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            }
            for _ in 0..<FactKey.partitions {
                guard let count = u32(), at + count * 8 <= raw.count else { return nil }
                keys.append((0..<count).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + $0 * 8, as: UInt64.self)) })
                at += count * 8
                guard let bytes = u32(), at + bytes <= raw.count else { return nil }
                open.append(Array(raw[at..<(at + bytes)]))
                at += bytes
            }
            return at == raw.count ? (keys, open) : nil
        }
    }

    /// The complete requests' ids of request partition `part` as the last run left them.
    func completeKeys(_ part: Int) -> Set<UInt64> { Set(requests.withLock { $0.keys[part] }) }

    /// Adds the facts of the open requests of request partition `part` (as the last run left them) to `bytes`.
    func readOpen(_ part: Int, into bytes: PartitionBytes) {
        let open = requests.withLock { $0.open[part] }
        open.withUnsafeBytes { raw in
            var at = 0
            while at + 8 <= raw.count {
                let file = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                let count = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                // Checked with requests.bin's checksum; a count past the end is cut, never read past (the facts then fail to decode).
                guard count <= raw.count - at - 8 else {
                    return bytes.append(UnsafeRawBufferPointer(rebasing: raw[(at + 8)...]), fileId: file)
                }
                bytes.append(UnsafeRawBufferPointer(rebasing: raw[(at + 8)..<(at + 8 + count)]), fileId: file)
                at += 8 + count
            }
        }
    }

    /// Appends one open request's fact to `open` as `readOpen` reads it: its chunk's file id, its bytes.
    static func appendOpen(_ fact: UnsafeRawBufferPointer, file: UInt32, to open: inout [UInt8]) {
        withUnsafeBytes(of: file.littleEndian) { open.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(fact.count).littleEndian) { open.append(contentsOf: $0) }
        open.append(contentsOf: fact)
    }

    /// Request partition `part` as this run leaves it: the ids of the requests it completed (added to the last
    /// run's when incremental) and the facts of its open requests.
    func keep(_ part: Int, completed: [UInt64], open: [UInt8]) {
        requests.withLock { requests in
            if isIncremental { requests.keys[part] += completed } else { requests.keys[part] = completed }
            requests.open[part] = open
        }
    }

    /// Writes the outputs held in memory (before the transaction stage reads them); returns what `commit` takes.
    func flush() throws -> (length: Int, segments: [[CarryLog.Segment]]) { try outputs.flush() }

    /// Makes the outputs (as `flush` left them) durable, writes `requests.bin`, then the state the files now describe.
    func commit(
        _ flushed: (length: Int, segments: [[CarryLog.Segment]]), source: FactSource, bundleIds: Set<String>, redeliveries: Set<UInt64>
    )
        throws
    {
        try outputs.sync()
        let (length, segments) = flushed
        var bytes = [UInt8]()
        requests.withLock { requests in
            for part in 0..<FactKey.partitions {
                withUnsafeBytes(of: UInt32(requests.keys[part].count).littleEndian) { bytes.append(contentsOf: $0) }
                for key in requests.keys[part] { withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) } }
                withUnsafeBytes(of: UInt32(requests.open[part].count).littleEndian) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: requests.open[part])
            }
        }
        try Self.writeDurably(bytes, to: requestsPath)
        let state = State(
            build: Self.build ?? "", generation: generation, factLayout: FactLayout.fingerprint, bundleIds: bundleIds.sorted(),
            files: source.files.map(\.id),
            requests: try source.chunkMark(.requests, upTo: nil), filesDeleted: source.filesDeleted, redeliveries: redeliveries.sorted(),
            outputLength: length, outputSegments: segments, requestsLength: bytes.count,
            requestsCheck: bytes.withUnsafeBytes { CarryLog.checksum($0) })
        try Self.writeDurably(try state.encoded(), to: statePath + ".new")
        guard rename(statePath + ".new", statePath) == 0 else { throw CarryLog.failure(statePath) }
    }

    /// Writes `bytes` as the whole of `path`, and makes it durable (fsync).
    private static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CarryLog.failure(path) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                guard n > 0 else { throw CarryLog.failure(path) }
                done += n
            }
        }
        guard fsync(fd) == 0 else { throw CarryLog.failure(path) }
    }
}
