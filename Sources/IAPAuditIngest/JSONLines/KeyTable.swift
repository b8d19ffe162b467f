import Foundation
import IAPAuditModel

/// The member names one record reader looks for, each with a slot number, found by a small
/// open-addressing table over (length, first, middle, last byte) and confirmed byte for byte.
struct KeyTable: Sendable {
    let names: [String]
    private let bytes: [UInt8]
    private let offsets: [Int]
    private let table: [Int16]
    private static let size = 256

    init(_ names: [String]) {
        self.names = names
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        for name in names {
            offsets.append(bytes.count)
            bytes += Array(name.utf8)
        }
        offsets.append(bytes.count)
        var table = [Int16](repeating: -1, count: Self.size)
        for (slot, name) in names.enumerated() {
            let utf8 = Array(name.utf8)
            var h = utf8.withUnsafeBufferPointer { Self.hash($0.baseAddress!, $0.count) }
            while table[h] != -1 { h = (h + 1) & (Self.size - 1) }
            table[h] = Int16(slot)
        }
        self.bytes = bytes
        self.offsets = offsets
        self.table = table
    }

    @inline(__always) private static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        guard n > 0 else { return 0 }
        return (n &* 37 &+ Int(p[0]) &* 5 &+ Int(p[n >> 1]) &* 11 &+ Int(p[n - 1]) &* 3) & (size - 1)
    }

    /// The slot of the key spelled by the `count` bytes at `p`, or -1 when it is not one of `names`.
    @inline(__always) func slot(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var h = Self.hash(p, count)
        return table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { bytes in
                while true {
                    let slot = Int(table[h])
                    if slot < 0 { return -1 }
                    let start = offsets[slot]
                    if offsets[slot + 1] - start == count && memcmp(bytes.baseAddress! + start, p, count) == 0 { return slot }
                    h = (h + 1) & (Self.size - 1)
                }
            }
        }
    }
}
