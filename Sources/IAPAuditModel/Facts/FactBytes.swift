import Foundation

/// Appends the primitives of the fact format (little-endian; see `FactStream` for the records).
///
/// - text: varint(length + 1) then the UTF-8 bytes; varint 0 is null.
/// - id (a transaction id): tag 0 + UInt64 for canonical decimal text (1–19 digits, no leading zero,
///   below 2^63, so the digits are the id exactly), tag 1 + text otherwise, tag 2 for null.
/// - optional integer: flag byte (0 absent, 1 present) then Int64.
package struct FactWriter {
    package var bytes: [UInt8] = []

    package init() {}

    @inline(__always) package mutating func u8(_ v: UInt8) { bytes.append(v) }

    @inline(__always) package mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func i64(_ v: Int64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func optional(_ v: Int64?) {
        if let v {
            bytes.append(1)
            i64(v)
        } else {
            bytes.append(0)
        }
    }

    @inline(__always) package mutating func optional(_ v: Bool?) { bytes.append(v.map { $0 ? 2 : 1 } ?? 0) }

    /// LEB128 of `v`'s bits (a negative value takes ten bytes; use `zigzag` for signed values).
    @inline(__always) package mutating func varint(_ v: Int) {
        var v = UInt(bitPattern: v)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    @inline(__always) package mutating func text(_ b: UnsafeBufferPointer<UInt8>?) {
        guard let b else { return bytes.append(0) }
        varint(b.count + 1)
        bytes.append(contentsOf: b)
    }

    package mutating func text(_ s: String?) {
        guard var s else { return bytes.append(0) }
        s.withUTF8 { text($0) }
    }

    @inline(__always) package mutating func id(_ b: UnsafeBufferPointer<UInt8>?) {
        guard let b else { return bytes.append(2) }
        if let number = FactKey.canonicalNumber(b) {
            bytes.append(0)
            withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
        } else {
            bytes.append(1)
            text(b)
        }
    }

    package mutating func id(_ s: String?) {
        guard var s else { return bytes.append(2) }
        s.withUTF8 { id($0) }
    }

    /// An id as a fact writer takes it.
    @inline(__always) package mutating func id(_ input: FactIdInput) {
        switch input {
        case .bytes(let b): id(b)
        case .number(let n):
            bytes.append(0)
            withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
        case .text(let s): id(s)
        case .none: bytes.append(2)
        }
    }

    /// A histogram: varint n, then n (value, count) pairs in value order.
    package mutating func histogram(_ h: [Int64: Int64]) {
        varint(h.count)
        for (value, count) in h.sorted(by: { $0.key < $1.key }) {
            i64(value)
            i64(count)
        }
    }

    /// An instant and its line: u8 present, then i64 ms and u32 line.
    package mutating func instant(_ v: (ms: Int64, line: UInt32)?) {
        guard let v else { return u8(0) }
        u8(1)
        i64(v.ms)
        u32(v.line)
    }
}

/// A transaction id as the fact writers take it: the bytes an input wrote (canonical decimal ids are
/// stored as numbers), a number already, or none.
package enum FactIdInput {
    case bytes(UnsafeBufferPointer<UInt8>)
    case number(UInt64)
    case text(String)
    case none

    /// `bytes`, or `.none` for nil.
    @inline(__always) package static func of(_ b: UnsafeBufferPointer<UInt8>?) -> FactIdInput { b.map { .bytes($0) } ?? .none }
}

/// Reads what `FactWriter` wrote. Texts are returned as byte ranges of the buffer read (no copies).
///
/// Every read is bounds-checked: a read past `end`, a count larger than the bytes left, a null where a value is
/// required or a code no writer writes reads as 0 (an empty text, the first case), sets `damaged` and moves `at` to
/// `end` (so a loop over the buffer ends). Never a trap or a read outside the buffer: a reader of stored facts checks
/// `damaged` after a fact and throws (`FactDecodingError`).
package struct FactReader {
    package let base: UnsafePointer<UInt8>
    package let end: Int
    package var at: Int
    /// A read went past `end` or met a value no writer writes: what was read since is not the facts stored.
    package private(set) var damaged = false

    package init(_ base: UnsafePointer<UInt8>, count: Int, at: Int = 0) {
        self.base = base
        self.end = max(0, count)
        self.at = min(max(0, at), self.end)
    }

    package var isAtEnd: Bool { at >= end }

    /// Whether `n` more bytes are there; if not, marks the reader damaged and at its end.
    @inline(__always) private mutating func has(_ n: Int) -> Bool {
        if n >= 0 && n <= end &- at { return true }
        fail()
        return false
    }

    /// Marks the reader damaged and at its end.
    package mutating func fail() {
        damaged = true
        at = end
    }

    @inline(__always) package mutating func u8() -> UInt8 {
        guard has(1) else { return 0 }
        defer { at += 1 }
        return base[at]
    }

    @inline(__always) package mutating func u32() -> UInt32 {
        guard has(4) else { return 0 }
        defer { at += 4 }
        return UInt32(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self))
    }

    @inline(__always) package mutating func i64() -> Int64 {
        guard has(8) else { return 0 }
        defer { at += 8 }
        return Int64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: Int64.self))
    }

    @inline(__always) package mutating func optionalInt() -> Int64? { u8() == 0 ? nil : i64() }

    @inline(__always) package mutating func optionalBool() -> Bool? {
        switch u8() {
        case 0: return nil
        case 1: return false
        default: return true
        }
    }

    /// LEB128, at most ten bytes.
    @inline(__always) package mutating func varint() -> Int {
        var v = 0
        var shift = 0
        while shift < 70 {
            guard has(1) else { return 0 }
            let b = base[at]
            at += 1
            v |= Int(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        fail()
        return 0
    }

    /// A count of elements that follow (each at least one byte): 0 and damaged when more than the bytes left.
    @inline(__always) package mutating func count() -> Int {
        let n = varint()
        guard n >= 0 && n <= end &- at else {
            fail()
            return 0
        }
        return n
    }

    /// `all[i]` for the byte `i` read; the first element and damaged when it is out of range.
    @inline(__always) package mutating func element<C: RandomAccessCollection>(of all: C) -> C.Element where C.Index == Int {
        let i = Int(u8())
        guard i < all.count else {
            fail()
            return all[all.startIndex]
        }
        return all[all.startIndex + i]
    }

    package mutating func histogram() -> [Int64: Int64] {
        var h: [Int64: Int64] = [:]
        for _ in 0..<count() {
            let value = i64()
            h[value] = i64()
        }
        return h
    }

    package mutating func instant() -> (ms: Int64, line: UInt32)? {
        guard u8() == 1 else { return nil }
        let ms = i64()
        return (ms, u32())
    }

    /// A text as a range of the buffer; nil for null.
    @inline(__always) package mutating func text() -> FactText? {
        let n = varint()
        guard n > 0 else { return nil }
        guard has(n - 1), let start = Int32(exactly: at), let count = Int32(exactly: n - 1) else {
            fail()
            return nil
        }
        at += n - 1
        return FactText(start: start, count: count)
    }

    /// A text that is never null: an empty text and damaged for null.
    @inline(__always) package mutating func requiredText() -> FactText {
        if let t = text() { return t }
        fail()
        return FactText(start: 0, count: 0)
    }

    /// An id: `.number` for canonical decimals, `.text` (a range of the buffer) otherwise; nil for null.
    @inline(__always) package mutating func id() -> FactId? {
        switch u8() {
        case 0:
            guard has(8) else { return nil }
            return .number(UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)).advancing(&at))
        case 1: return text().map { .text($0) }
        default: return nil
        }
    }

    /// An id that is never null: `.number(0)` and damaged for null.
    @inline(__always) package mutating func requiredId() -> FactId {
        if let id = id() { return id }
        fail()
        return .number(0)
    }
}

/// Stored facts that cannot be decoded (`FactReader.damaged`): where they were read.
package struct FactDecodingError: Error, CustomStringConvertible {
    package let place: String
    /// The input file whose stored facts they are (`source_file.file_id`); 0 for facts a run made (a spill).
    package let fileId: UInt32

    package init(_ place: String, fileId: UInt32 = 0) { (self.place, self.fileId) = (place, fileId) }

    package var description: String { "damaged facts: \(place) cannot be decoded" }
}

private extension UInt64 {
    @inline(__always) func advancing(_ at: inout Int) -> UInt64 {
        at += 8
        return self
    }
}

/// A text inside a fact buffer.
package struct FactText: Hashable {
    package var start: Int32
    package var count: Int32
}

/// An id read from a fact buffer.
package enum FactId {
    case number(UInt64)
    case text(FactText)
}

/// Partitioning keys of the fact format: the same text always lands in the same partition, in
/// every file and every run (the format is stored: changing it needs a `Schema.readerVersion` bump).
package enum FactKey {
    /// Partitions of each keyed stream.
    package static let partitions = 256

    /// The UInt64 whose decimal digits are `b` exactly, or nil (leading zero, sign, >= 2^63, not digits).
    @inline(__always) package static func canonicalNumber(_ b: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let n = b.count
        guard n >= 1, n <= 19, b[0] &- 0x30 < 10, b[0] != UInt8(ascii: "0") || n == 1 else { return nil }
        var v: UInt64 = 0
        for i in 0..<n {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            v = v &* 10 &+ UInt64(d)
        }
        return v < 1 << 63 ? v : nil
    }

    @inline(__always) package static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always) package static func hash(text b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in b { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return mix(h)
    }

    /// The partition of an id (numeric ids hash their value, others their bytes).
    @inline(__always) package static func partition(id b: UnsafeBufferPointer<UInt8>) -> Int {
        let h = canonicalNumber(b).map(mix) ?? hash(text: b)
        return Int(h >> 56)
    }

    @inline(__always) package static func partition(number: UInt64) -> Int { Int(mix(number) >> 56) }

    /// The partition of a key compared as text (request ids, notification UUIDs).
    @inline(__always) package static func partition(text b: UnsafeBufferPointer<UInt8>) -> Int { Int(hash(text: b) >> 56) }
}

/// Calls `body` with the UTF-8 bytes of `text` (made contiguous in place), or with nil.
@inline(__always)
package func withOptionalUTF8<R>(_ text: inout String?, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
    guard text != nil else { return try body(nil) }
    return try text!.withUTF8 { try body($0) }
}
