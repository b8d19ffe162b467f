import Foundation

/// A text field of a `RecordBatch`: UTF-8 bytes in the batch's arena, or null.
public struct TextRef: Sendable, Equatable {
    package var start: UInt32
    package var count: UInt32

    package init(start: UInt32, count: UInt32) {
        self.start = start
        self.count = count
    }

    /// SQL NULL / Swift nil.
    package static let null = TextRef(start: .max, count: 0)

    package var isNull: Bool { start == .max }
}

/// The bytes behind a batch's `TextRef`s: every text of a batch is appended once and read in place
/// (bound to SQLite without a copy, encoded into reconciliation facts), so a batch of records costs
/// one growing buffer instead of one heap string per field.
package struct TextArena: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(1 << 16) }

    /// Appends `count` bytes from `base`.
    @inline(__always)
    package mutating func append(_ base: UnsafePointer<UInt8>, _ count: Int) -> TextRef {
        let start = bytes.count
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        return TextRef(start: UInt32(start), count: UInt32(count))
    }

    package mutating func append(_ text: String?) -> TextRef {
        guard var text else { return .null }
        return text.withUTF8 { append($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
    }

    package mutating func append<S: Sequence>(bytes sequence: S) -> TextRef where S.Element == UInt8 {
        let start = bytes.count
        bytes.append(contentsOf: sequence)
        return TextRef(start: UInt32(start), count: UInt32(bytes.count - start))
    }

    /// The text of `ref`; nil for `.null`.
    package func string(_ ref: TextRef) -> String? {
        guard !ref.isNull else { return nil }
        return String(decoding: bytes[Int(ref.start)..<Int(ref.start + ref.count)], as: UTF8.self)
    }

    package var count: Int { bytes.count }
}
