/// SplitMix64 (Steele, Lea, Flood 2014): 64 random bits a call, the whole sequence fixed by the 64-bit seed (the
/// sample's files, the fuzz driver's mutants: the same seed gives the same bytes). Integer arithmetic only.
package struct SplitMix64: Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
