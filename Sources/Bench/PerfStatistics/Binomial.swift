import Foundation

/// The binomial distribution, from log-space terms so that large trial counts do not underflow.
public enum Binomial {
    /// P(B = k) for B ~ Binomial(trials, probability).
    public static func probability(of k: Int, trials: Int, probability p: Double) -> Double {
        precondition(k >= 0 && k <= trials, "\(k) successes of \(trials) trials")
        let n = Double(trials)
        let k = Double(k)
        let logWays = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)
        // Written out so that p = 0 or 1 gives 0 or 1, not NaN from 0 · log 0.
        let logSuccesses = k == 0 ? 0 : k * log(p)
        let logFailures = n - k == 0 ? 0 : (n - k) * log1p(-p)
        return exp(logWays + logSuccesses + logFailures)
    }

    /// P(B ≥ k): the one-sided p-value of k or more successes.
    public static func upperTail(atLeast k: Int, trials: Int, probability p: Double) -> Double {
        guard k <= trials else { return 0 }
        return min(1, (max(0, k)...trials).reduce(0) { $0 + probability(of: $1, trials: trials, probability: p) })
    }
}
