/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and good enough for resampling indices;
/// the one seeded generator of the package (Harness's bootstraps, every test's synthetic data).
/// Inlinable: a bootstrap draws millions of indices from another module.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    @inlinable package init(seed: UInt64) { state = seed }

    @inlinable package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform index in `0..<bound` by multiply-high (Lemire); the bias is below bound / 2⁶⁴.
    @inlinable package mutating func nextIndex(below bound: Int) -> Int {
        Int(UInt64(bound).multipliedFullWidth(by: next()).high)
    }

    /// A uniform double in [0, 1) with 53 random bits.
    @inlinable package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
