import Foundation
import IAPAuditModel

/// The facts of one partition of a stream, copied into one buffer that stays put while they are
/// read (texts are ranges of it). Segments say which file the facts of each stretch came from.
final class PartitionBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// (start offset, file id) of each stretch, in order.
    private(set) var segments: [(start: Int, fileId: UInt32)] = []

    init(capacity: Int = 1 << 16) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Appends facts read from a chunk of `fileId` (0 for facts that name their files themselves).
    func append(_ bytes: UnsafeRawBufferPointer, fileId: UInt32) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        segments.append((count, fileId))
        (base + count).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    private func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        var bigger = capacity * 2
        while bigger < count + more { bigger *= 2 }
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        p.update(from: base, count: count)
        base.deallocate()
        base = p
        capacity = bigger
    }

    /// Calls `body` with a reader at each fact and the file id its chunk belongs to. Throws `FactDecodingError` when a
    /// fact cannot be decoded (`FactReader.damaged`, set by a read past the stretch's end, by a value no writer writes,
    /// or by `body` through `fail()` for a kind its stream does not hold).
    func forEachFact(_ body: (inout FactReader, _ chunkFile: UInt32) -> Void) throws {
        for (k, segment) in segments.enumerated() {
            let end = k + 1 < segments.count ? segments[k + 1].start : count
            var reader = FactReader(UnsafePointer(base), count: end, at: segment.start)
            while !reader.isAtEnd {
                body(&reader, segment.fileId)
                if reader.damaged {
                    throw FactDecodingError(
                        segment.fileId == 0 ? "facts made by this run" : "a chunk of file id \(segment.fileId)", fileId: segment.fileId)
                }
            }
        }
    }

    /// The bytes of a text read from this buffer.
    @inline(__always) func bytes(_ t: FactText) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(t.start), count: Int(t.count))
    }

    @inline(__always) func string(_ t: FactText?) -> String? { t.map { String(decoding: bytes($0), as: UTF8.self) } }

    @inline(__always) func equals(_ a: FactText?, _ b: FactText?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return a.count == b.count && memcmp(base + Int(a.start), base + Int(b.start), Int(a.count)) == 0
        default: return false
        }
    }
}

/// A text of a partition buffer as a dictionary key (hashed and compared by its bytes).
struct ByteKey: Hashable {
    let pointer: UnsafePointer<UInt8>
    let count: Int

    init(_ bytes: PartitionBytes, _ t: FactText) {
        pointer = UnsafePointer(bytes.base + Int(t.start))
        count = Int(t.count)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(start: pointer, count: count)) }

    static func == (a: ByteKey, b: ByteKey) -> Bool { a.count == b.count && memcmp(a.pointer, b.pointer, a.count) == 0 }
}
