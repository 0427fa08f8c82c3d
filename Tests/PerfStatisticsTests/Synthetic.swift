import Foundation

/// Seeded series for the change-point tests: the same values as HarnessTests' `Synthetic.normal`
/// (SplitMix64, Box–Muller), so that both targets' expectations hold for the same seeds.
enum Synthetic {
    /// Normally distributed values from a fixed seed: the same every test run.
    static func normal(count: Int, mean: Double, relativeSpread: Double, seed: UInt64) -> [Double] {
        var state = seed
        // SplitMix64 (Steele, Lea and Flood, 2014), 53 random bits as a double in [0, 1).
        func nextUnit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) * 0x1.0p-53
        }
        return (0..<count).map { _ in
            let u1 = max(nextUnit(), .leastNonzeroMagnitude)
            let u2 = nextUnit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return mean * (1 + relativeSpread * z)
        }
    }
}
