import Foundation
import PerfStatistics

/// Seeded series for the change-point tests: the same values as HarnessTests' `Synthetic.normal`
/// (SplitMix64, Box–Muller), so that both targets' expectations hold for the same seeds.
enum Synthetic {
    /// Normally distributed values from a fixed seed: the same every test run.
    static func normal(count: Int, mean: Double, relativeSpread: Double, seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let u1 = max(generator.nextUnit(), .leastNonzeroMagnitude)
            let u2 = generator.nextUnit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return mean * (1 + relativeSpread * z)
        }
    }
}
