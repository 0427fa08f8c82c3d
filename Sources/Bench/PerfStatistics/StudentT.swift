import Foundation

/// Student's t distribution: the two-sided p-value of a t statistic and the quantile an interval
/// needs, for comparisons made on a handful of per-process medians (``ProcessLevelComparison``),
/// where the normal approximation would claim far more certainty than 3–5 values give.
package enum StudentT {
    /// P(|T| ≥ |t|) with `degreesOfFreedom` (> 0): I_{ν/(ν+t²)}(ν/2, 1/2).
    package static func twoSidedPValue(_ t: Double, degreesOfFreedom: Double) -> Double {
        precondition(degreesOfFreedom > 0, "degrees of freedom must be positive")
        if t.isNaN { return 1 }
        if t.isInfinite { return 0 }
        let x = degreesOfFreedom / (degreesOfFreedom + t * t)
        return min(1, max(0, regularizedIncompleteBeta(x, a: degreesOfFreedom / 2, b: 0.5)))
    }

    /// The t with P(T ≤ t) = `probability` (in (0.5, 1)), by bisection on the p-value: 60 halvings
    /// of [0, 1e6] are far below any precision a verdict needs.
    package static func quantile(_ probability: Double, degreesOfFreedom: Double) -> Double {
        precondition(probability > 0.5 && probability < 1, "probability must be in (0.5, 1)")
        let tail = 2 * (1 - probability)
        var low = 0.0
        var high = 1e6
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if twoSidedPValue(middle, degreesOfFreedom: degreesOfFreedom) > tail { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// I_x(a, b), by the continued fraction of Numerical Recipes §6.4 (modified Lentz), using the
    /// symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
    static func regularizedIncompleteBeta(_ x: Double, a: Double, b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logBeta: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let logFront = logBeta + logPowers
        if x < (a + 1) / (a + b + 2) {
            return exp(logFront) * continuedFraction(x, a: a, b: b) / a
        }
        return 1 - exp(logFront) * continuedFraction(1 - x, a: b, b: a) / b
    }

    private static func continuedFraction(_ x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        for m in 1...300 {
            let m = Double(m)
            let evenDenominator: Double = (a + 2 * m - 1) * (a + 2 * m)
            let even: Double = m * (b - m) * x / evenDenominator
            d = 1 + even * d
            if abs(d) < tiny { d = tiny }
            c = 1 + even / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            let oddDenominator: Double = (a + 2 * m) * (a + 2 * m + 1)
            let odd: Double = -(a + m) * (a + b + m) * x / oddDenominator
            d = 1 + odd * d
            if abs(d) < tiny { d = tiny }
            c = 1 + odd / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            result *= step
            if abs(step - 1) < 1e-12 { break }
        }
        return result
    }
}
