import IAPAuditModel

/// The sample's random choices, all drawn from one `SplitMix64`: its whole output is fixed by the 64-bit seed, so the
/// same seed gives byte-identical sample files on every run.
///
/// Only integer arithmetic and IEEE comparisons are used (no `exp`/`log`), so the sequence does
/// not depend on the C library either.
struct SampleRandom {
    private var bits: SplitMix64

    init(seed: UInt64) {
        bits = SplitMix64(seed: seed)
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 { bits.next() }

    /// A uniform integer in `0..<bound` (`bound` > 0), by the multiply-high method.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform integer in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// A uniform integer in `range`, for second counts.
    mutating func seconds(_ range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(below(Int(range.upperBound - range.lowerBound) + 1))
    }

    /// A uniform number in `0..<1` with 53 random bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    /// One element chosen by integer weights.
    mutating func weighted<T>(_ items: [(T, Int)]) -> T {
        let total = items.reduce(0) { $0 + $1.1 }
        var roll = below(total)
        for (item, weight) in items {
            if roll < weight { return item }
            roll -= weight
        }
        return items[items.count - 1].0
    }

    /// `count` lowercase hexadecimal digits.
    mutating func hex(_ count: Int) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(count)
        var bits: UInt64 = 0
        for index in 0..<count {
            if index % 16 == 0 { bits = next() }
            text.append(digits[Int(bits & 15)])
            bits >>= 4
        }
        return text
    }

    /// A random (version 4 shaped) UUID in upper case, as `identifierForVendor` prints it.
    mutating func uuid() -> String {
        let h = Array(hex(32).uppercased())
        let variant = Array("89AB")[below(4)]
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-4" + String(h[13..<16]) + "-"
            + String(variant) + String(h[17..<20]) + "-" + String(h[20..<32])
    }
}
