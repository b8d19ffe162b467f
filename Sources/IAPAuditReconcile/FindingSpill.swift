import Foundation
import IAPAuditModel
import Synchronization

/// The findings of a reconciliation, kept out of memory as they are made: each encoded and appended to
/// a file (in memory when there is no directory), with only its sort key held. Read back in table
/// order: kind, reason, transaction id, users. Thread-safe while findings are added.
package final class FindingSpill: Sendable {
    /// Where a finding is: its bytes in the file, its sort key in `sortBytes`, its reason in `reasons`.
    private struct Key {
        var kind: UInt8
        var reason: Int32
        var firstSeenMs: Int64?
        /// A dropped order's Apple confirmation (rule 22): 0 none, else 1 + its index in `AppleConfirmation.allCases`.
        var confirmation: UInt8
        var offset: Int
        var count: Int32
        var sortStart: Int32
        var sortCount: Int32
        /// XXH64 of its bytes (`FactChecksum`), checked when it is read back from the file.
        var check: UInt64
    }

    /// What the spill holds, changed under its lock by the partitions' threads.
    private struct State {
        var keys: [Key] = []
        /// The sort keys, one after another: (kind, reason, transaction id, users) in an encoding whose
        /// byte order is their order (see `SortKey`).
        var sortBytes: [UInt8] = []
        var reasons: [String] = []
        var reasonIndex: [ExactText: Int32] = [:]
        /// The findings' bytes when there is no file.
        var memory: [UInt8] = []
        var buffer: [UInt8] = []
        var written = 0
        var sorted = false
        /// The file mapped for reading (its first `count` bytes), once the findings are read back; mapped
        /// again when more were added since (the older mappings stay until the spill goes: a reader may hold one).
        var mapping: (base: UnsafeRawPointer, count: Int)?
        var retired: [(base: UnsafeRawPointer, count: Int)] = []

        /// The number of `text` among the reasons.
        mutating func reason(_ text: String) -> Int32 {
            if let known = reasonIndex[ExactText(text)] { return known }
            reasons.append(text)
            reasonIndex[ExactText(text)] = Int32(reasons.count - 1)
            return Int32(reasons.count - 1)
        }
    }
    private let state = Mutex(State())
    private let descriptor: Int32
    private let path: String?

    /// - Parameter directory: where the file goes (created if missing); nil keeps the findings in memory.
    init(directory: String?) throws {
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/findings"
            descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw AuditError.output(path, String(cString: strerror(errno))) }
            // Nobody else needs its name: unlinked now, it cannot be truncated under its mapping, and a killed
            // run leaves nothing behind.
            unlink(path)
            self.path = path
        } else {
            path = nil
            descriptor = -1
        }
    }

    /// The findings are in a file (unlinked once open), not in memory.
    package var isFile: Bool { descriptor >= 0 }

    deinit {
        state.withLock { state in
            for m in state.retired + (state.mapping.map { [$0] } ?? []) { munmap(UnsafeMutableRawPointer(mutating: m.base), m.count) }
        }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds findings (from any thread). Throws when the file cannot be written.
    func add(_ findings: [Finding]) throws {
        guard !findings.isEmpty else { return }
        var w = FactWriter()
        var sort = SortKey()
        var entries: [(kind: UInt8, offset: Int, count: Int, sortStart: Int, sortCount: Int, check: UInt64)] = []
        for f in findings {
            let start = w.bytes.count
            Self.encode(f, &w)
            let kind = UInt8(FindingKind.allCases.firstIndex(of: f.kind)!)
            let sortStart = sort.bytes.count
            sort.append(kind, f.reason, f.transactionId, f.userIds)
            let check = w.bytes.withUnsafeBytes { FactChecksum.xxh64(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            entries.append((kind, start, w.bytes.count - start, sortStart, sort.bytes.count - sortStart, check))
        }
        try state.withLock { state in
            let base = state.written + state.buffer.count
            let sortBase = state.sortBytes.count
            for (e, f) in zip(entries, findings) {
                state.keys.append(
                    Key(
                        kind: e.kind, reason: state.reason(f.reason), firstSeenMs: f.firstSeenMs,
                        confirmation: Self.code(f.appleConfirmation), offset: base + e.offset,
                        count: Int32(e.count), sortStart: Int32(sortBase + e.sortStart), sortCount: Int32(e.sortCount), check: e.check))
            }
            state.sortBytes.append(contentsOf: sort.bytes)
            state.buffer.append(contentsOf: w.bytes)
            if state.buffer.count >= 1 << 20 { try flush(&state) }
        }
    }

    private func flush(_ state: inout State) throws {
        guard !state.buffer.isEmpty else { return }
        if descriptor >= 0 {
            let n = state.buffer.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(state.written)) }
            // A short write sets no errno: the disk is full.
            if n != state.buffer.count {
                throw AuditError.output(path!, "cannot write: \(String(cString: strerror(n < 0 ? errno : ENOSPC)))")
            }
        } else {
            state.memory.append(contentsOf: state.buffer)
        }
        state.written += state.buffer.count
        state.buffer = []
    }

    /// The keys in table order (sorted once): by their sort keys' bytes, which is kind, then reason,
    /// transaction id and users compared as exact bytes (as SQLite's BINARY collation does); and the
    /// findings' bytes (the file mapped, or a copy of the memory), valid while the spill lives.
    private func sortedKeys() throws -> (keys: [Key], bytes: UnsafeRawPointer?) {
        try state.withLock { state in
            try flush(&state)
            if !state.sorted {
                let sortBytes = state.sortBytes
                sortBytes.withUnsafeBufferPointer { b in
                    let base = b.baseAddress!
                    state.keys.sort { x, y in
                        let n = Int(min(x.sortCount, y.sortCount))
                        let c = memcmp(base + Int(x.sortStart), base + Int(y.sortStart), n)
                        return c != 0 ? c < 0 : x.sortCount < y.sortCount
                    }
                }
                state.sorted = true
            }
            guard state.written > 0 else { return (state.keys, nil) }
            if state.mapping?.count != state.written {
                if let old = state.mapping { state.retired.append(old) }
                state.mapping = nil
                let mapped: UnsafeMutableRawPointer?
                if descriptor >= 0 {
                    mapped = mmap(nil, state.written, PROT_READ, MAP_SHARED, descriptor, 0)
                    if mapped == MAP_FAILED || mapped == nil {
                        throw AuditError.output(path!, "cannot map: \(String(cString: strerror(errno)))")
                    }
                } else {
                    mapped = mmap(nil, state.written, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                    if mapped == MAP_FAILED || mapped == nil { throw AuditError.output("memory", String(cString: strerror(errno))) }
                    state.memory.withUnsafeBytes { mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                }
                state.mapping = (UnsafeRawPointer(mapped!), state.written)
            }
            return (state.keys, state.mapping?.base)
        }
    }

    /// Calls `body` with every finding in table order (kind, reason, transaction id, users); from
    /// several threads at once if need be.
    package func forEach(_ body: (Finding) throws -> Void) throws { try forEach(kinds: nil, limit: Int.max, body) }

    private func forEach(kinds: Set<Int>?, limit: Int, _ body: (Finding) throws -> Void) throws {
        var left = limit
        let (keys, bytes) = try sortedKeys()
        for key in keys where left > 0 && kinds?.contains(Int(key.kind)) != false {
            left -= 1
            try body(Self.decode(try Self.checked(key, bytes)))
        }
    }

    /// Findings read back that are not those written (`FactDecodingError`; the run stops: docs/security.md).
    private static let damaged = FactDecodingError("the findings spilled by this run (DIR/.reconcile-spill/findings)")

    /// The bytes of the finding at `key` once they match its checksum.
    private static func checked(_ key: Key, _ bytes: UnsafeRawPointer?) throws -> UnsafeBufferPointer<UInt8> {
        guard let bytes, key.count > 0 else { throw damaged }
        let b = UnsafeBufferPointer(start: bytes.advanced(by: key.offset).assumingMemoryBound(to: UInt8.self), count: Int(key.count))
        guard FactChecksum.xxh64(UnsafeRawBufferPointer(b)) == key.check else { throw damaged }
        return b
    }

    /// Calls `body` with each finding's kind, reason and transaction id (what its stable id is made of:
    /// `FindingIds`), in table order, without decoding the rest of it.
    package func forEachIdentity(_ body: (FindingKind, _ reason: String, _ transactionId: String) throws -> Void) throws {
        let (keys, bytes) = try sortedKeys()
        let reasons = state.withLock { $0.reasons }
        for key in keys {
            let b = try Self.checked(key, bytes)
            let start = b.baseAddress!
            var r = FactReader(start, count: b.count)
            _ = (r.u8(), r.text())  // as `decode` reads: the kind and the reason (the key has both)
            let id = r.requiredText()
            guard !r.damaged else { throw Self.damaged }
            let transactionId = String(decoding: UnsafeBufferPointer(start: start + Int(id.start), count: Int(id.count)), as: UTF8.self)
            try body(FindingKind.allCases[Int(key.kind)], reasons[Int(key.reason)], transactionId)
        }
    }

    /// The findings for the reports: counts and problems per day from the keys, findings read back
    /// in table order.
    package func stream() throws -> FindingStream {
        var counts: [Int: [String: (count: Int, confirmed: Int, refunded: Int)]] = [:]
        var perDay: [Int64: Int] = [:]
        let keys = try sortedKeys().keys
        let reasons = state.withLock { $0.reasons }
        for key in keys {
            counts[Int(key.kind), default: [:]][reasons[Int(key.reason)], default: (0, 0, 0)].count += 1
            let confirmation = Self.confirmation(key.confirmation)
            if confirmation == .confirmed {
                counts[Int(key.kind), default: [:]][reasons[Int(key.reason)], default: (0, 0, 0)].confirmed += 1
            }
            if confirmation == .refunded { counts[Int(key.kind), default: [:]][reasons[Int(key.reason)], default: (0, 0, 0)].refunded += 1 }
            if !FindingKind.allCases[Int(key.kind)].isInfo, let ms = key.firstSeenMs { perDay[FindingStream.day(ms), default: 0] += 1 }
        }
        return FindingStream(
            counts: FindingKind.allCases.enumerated().flatMap { kind, name in
                (counts[kind] ?? [:]).sorted { $0.key < $1.key }.map {
                    FindingCount(
                        kind: name, reason: $0.key, count: $0.value.count, confirmed: $0.value.confirmed, refunded: $0.value.refunded)
                }
            },
            problemsPerDay: perDay.sorted { $0.key < $1.key }.map { (dayMs: $0.key, findings: $0.value) },
            produce: { [self] kinds, limit, body in
                try forEach(kinds: Set(kinds.map { FindingKind.allCases.firstIndex(of: $0)! }), limit: limit, body)
            })
    }

    /// Every finding, in table order (tests, small runs).
    func all() throws -> [Finding] {
        var result: [Finding] = []
        try forEach { result.append($0) }
        return result
    }

    /// 0 for none, else 1 + the index in `AppleConfirmation.allCases`.
    private static func code(_ c: AppleConfirmation?) -> UInt8 { c.map { UInt8(AppleConfirmation.allCases.firstIndex(of: $0)! + 1) } ?? 0 }

    private static func confirmation(_ code: UInt8) -> AppleConfirmation? { code == 0 ? nil : AppleConfirmation.allCases[Int(code) - 1] }

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
        w.optional(f.lossAtMs)
        w.varint(f.evidence.count)
        for e in f.evidence {
            w.text(e.file)
            w.varint(e.line)
        }
        w.text(f.detail)
        // The facts as their JSON (`FindingFacts.json`): a finding's facts are few, and the ledger stores that text.
        w.text(f.facts.isEmpty ? "" : f.facts.json)
        w.u8(code(f.appleConfirmation))
    }

    /// A finding as `encode` wrote it; throws `FactDecodingError` when the bytes do not decode (bounds-checked reads).
    private static func decode(_ b: UnsafeBufferPointer<UInt8>) throws -> Finding {
        var r = FactReader(b.baseAddress!, count: b.count)
        func text(_ t: FactText) -> String {
            String(decoding: UnsafeBufferPointer(start: b.baseAddress! + Int(t.start), count: Int(t.count)), as: UTF8.self)
        }
        func string() -> String? { r.text().map(text) }
        func required() -> String { text(r.requiredText()) }
        let kind = r.element(of: FindingKind.allCases)
        let reason = required()
        let id = required()
        let original = string()
        let product = string()
        let users = (0..<r.count()).map { _ in required() }
        let environment = string()
        let firstSeen = r.optionalInt()
        let lossAt = r.optionalInt()
        let evidence = (0..<r.count()).map { _ in SourceLocation(file: required(), line: r.varint()) }
        let detail = required()
        let factsJSON = required()
        let confirmationCode = r.u8()
        guard !r.damaged, Int(confirmationCode) <= AppleConfirmation.allCases.count,
            let facts = factsJSON.isEmpty ? FindingFacts() : FindingFacts(json: factsJSON)
        else { throw damaged }
        return Finding(
            kind: kind, reason: reason, transactionId: id, originalTransactionId: original, productId: product, userIds: users,
            environment: environment, firstSeenMs: firstSeen, lossAtMs: lossAt, evidence: evidence, detail: detail,
            facts: facts, appleConfirmation: confirmation(confirmationCode))
    }
}

/// Sort keys whose byte order is the order of their fields: each text's bytes with 0x00 written as
/// 0x00 0x01, ended by 0x00 0x00 (so a shorter text sorts first and no two fields run together).
private struct SortKey {
    var bytes: [UInt8] = []

    mutating func append(_ kind: UInt8, _ reason: String, _ transactionId: String, _ users: [String]) {
        bytes.append(kind)
        text(reason)
        text(transactionId)
        for user in users { text(user) }
    }

    private mutating func text(_ s: String) {
        for byte in s.utf8 {
            bytes.append(byte)
            if byte == 0 { bytes.append(1) }
        }
        bytes.append(0)
        bytes.append(0)
    }
}
