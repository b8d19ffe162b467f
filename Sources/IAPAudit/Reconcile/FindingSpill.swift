import Foundation

/// The findings of a reconciliation, kept out of memory as they are made: each encoded and appended to
/// a file (in memory when there is no directory), with only its sort key held. Read back in table
/// order: kind, reason, transaction id, users. Thread-safe while findings are added.
final class FindingSpill: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [(kind: Int, reason: String, transactionId: String, users: String, offset: Int, count: Int)] = []
    private var memory: [UInt8] = []
    private var buffer: [UInt8] = []
    private var written = 0
    private let handle: FileHandle?
    private let path: String?
    private var sorted = false

    /// - Parameter directory: where the file goes (created if missing); nil keeps the findings in memory.
    init(directory: String?) throws {
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/findings"
            FileManager.default.createFile(atPath: path, contents: nil)
            self.path = path
            handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        } else {
            path = nil
            handle = nil
        }
    }

    deinit {
        try? handle?.close()
        if let path { try? FileManager.default.removeItem(atPath: path) }
    }

    var count: Int { lock.withLock { keys.count } }

    /// Adds findings (from any thread). Throws when the file cannot be written.
    func add(_ findings: [Finding]) throws {
        guard !findings.isEmpty else { return }
        var w = FactWriter()
        var entries: [(Int, String, String, String, Int, Int)] = []
        for f in findings {
            let start = w.bytes.count
            Self.encode(f, &w)
            entries.append(
                (FindingKind.allCases.firstIndex(of: f.kind)!, f.reason, f.transactionId, f.userIds.joined(separator: ","), start, w.bytes.count - start))
        }
        try lock.withLock {
            let base = written + buffer.count
            for e in entries { keys.append((e.0, e.1, e.2, e.3, base + e.4, e.5)) }
            buffer.append(contentsOf: w.bytes)
            if buffer.count >= 1 << 20 { try flush() }
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        if let handle {
            try handle.seekToEnd()
            try handle.write(contentsOf: buffer)
        } else {
            memory.append(contentsOf: buffer)
        }
        written += buffer.count
        buffer = []
    }

    /// Calls `body` with every finding in table order (kind, reason, transaction id, users).
    func forEach(_ body: (Finding) throws -> Void) throws {
        let keys: [(kind: Int, reason: String, transactionId: String, users: String, offset: Int, count: Int)] = try lock.withLock {
            try flush()
            if !sorted {
                self.keys.sort { ($0.kind, $0.reason, $0.transactionId, $0.users) < ($1.kind, $1.reason, $1.transactionId, $1.users) }
                sorted = true
            }
            return self.keys
        }
        for key in keys {
            let bytes: [UInt8]
            if let handle {
                try handle.seek(toOffset: UInt64(key.offset))
                bytes = [UInt8](try handle.read(upToCount: key.count) ?? Data())
            } else {
                bytes = Array(memory[key.offset..<(key.offset + key.count)])
            }
            try body(bytes.withUnsafeBufferPointer { Self.decode($0) })
        }
    }

    /// Every finding, in table order (tests, small runs).
    func all() throws -> [Finding] {
        var result: [Finding] = []
        try forEach { result.append($0) }
        return result
    }

    // MARK: Encoding (the fact format's primitives)

    private static func encode(_ f: Finding, _ w: inout FactWriter) {
        w.u8(UInt8(FindingKind.allCases.firstIndex(of: f.kind)!))
        w.text(f.reason)
        w.text(f.transactionId)
        w.text(f.originalTransactionId)
        w.text(f.productId)
        w.varint(f.userIds.count)
        for user in f.userIds { w.text(user) }
        w.text(f.environment)
        w.optional(f.firstSeenMs)
        w.varint(f.evidence.count)
        for e in f.evidence {
            w.text(e.file)
            w.varint(e.line)
        }
        w.text(f.detail)
    }

    private static func decode(_ b: UnsafeBufferPointer<UInt8>) -> Finding {
        var r = FactReader(b.baseAddress!, count: b.count)
        func string() -> String? { r.text().map { String(decoding: UnsafeBufferPointer(start: b.baseAddress! + Int($0.start), count: Int($0.count)), as: UTF8.self) } }
        let kind = FindingKind.allCases[Int(r.u8())]
        let reason = string()!
        let id = string()!
        let original = string()
        let product = string()
        let users = (0..<r.varint()).map { _ in string()! }
        let environment = string()
        let firstSeen = r.optionalInt()
        let evidence = (0..<r.varint()).map { _ in SourceLocation(file: string()!, line: r.varint()) }
        return Finding(
            kind: kind, reason: reason, transactionId: id, originalTransactionId: original, productId: product, userIds: users,
            environment: environment, firstSeenMs: firstSeen, evidence: evidence, detail: string()!)
    }
}
