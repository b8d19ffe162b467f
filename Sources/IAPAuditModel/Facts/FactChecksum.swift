/// The checksum of stored facts: XXH64 (Yann Collet's xxHash, 64-bit; https://github.com/Cyan4973/xxHash,
/// doc/xxhash_spec.md) of a chunk's bytes. It is computed once per chunk when it is stored (`fact_chunk.checksum`)
/// and again when it is read (`StoreFactSource`): 32 bytes per step in four independent lanes (7–20 GB/s measured
/// with -O on this machine), so a 256 KiB chunk costs tens of microseconds. A spill file's stretches and spilled
/// findings carry it too (`PartitionSpill`, `FindingSpill`).
package enum FactChecksum {
    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        ((acc &+ input &* p2) << 31 | (acc &+ input &* p2) >> 33) &* p1
    }

    @inline(__always) private static func merge(_ acc: UInt64, _ lane: UInt64) -> UInt64 {
        (acc ^ round(0, lane)) &* p1 &+ p4
    }

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { x << r | x >> (64 - r) }

    /// XXH64 of `bytes` with `seed`.
    package static func xxh64(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return finish(seed &+ p5, tail: bytes, from: 0, total: 0) }
        @inline(__always) func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var at = 0
        var h: UInt64
        if n >= 32 {
            var (v1, v2, v3, v4) = (seed &+ p1 &+ p2, seed &+ p2, seed, seed &- p1)
            while at + 32 <= n {
                v1 = round(v1, u64(at))
                v2 = round(v2, u64(at + 8))
                v3 = round(v3, u64(at + 16))
                v4 = round(v4, u64(at + 24))
                at += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        return finish(h &+ UInt64(n), tail: bytes, from: at, total: n)
    }

    private static func finish(_ start: UInt64, tail bytes: UnsafeRawBufferPointer, from: Int, total n: Int) -> UInt64 {
        var h = start
        var at = from
        while at + 8 <= n {
            h ^= round(0, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            h = rotl(h, 27) &* p1 &+ p4
            at += 8
        }
        if at + 4 <= n {
            h ^= UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            at += 4
        }
        while at < n {
            h ^= UInt64(bytes[at]) &* p5
            h = rotl(h, 11) &* p1
            at += 1
        }
        h ^= h >> 33
        h = h &* p2
        h ^= h >> 29
        h = h &* p3
        h ^= h >> 32
        return h
    }

    /// The checksum `fact_chunk.checksum` stores for a chunk: XXH64 of its bytes, seeded with where it belongs (its
    /// file id, stream and partition), so a chunk whose `file_id`, `stream` or `part` changed fails it too. Stored as
    /// the same 64 bits in a signed INTEGER.
    package static func chunk(_ bytes: UnsafeRawBufferPointer, fileId: Int64, stream: Int64, part: Int64) -> Int64 {
        let seed = FactKey.mix(UInt64(bitPattern: fileId) << 24 ^ UInt64(bitPattern: stream) << 16 ^ UInt64(bitPattern: part))
        return Int64(bitPattern: xxh64(bytes, seed: seed))
    }
}
