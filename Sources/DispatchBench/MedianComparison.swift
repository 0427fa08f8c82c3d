import Foundation
import Harness
import PerfReport

/// Whether one benchmark's wall time differs significantly from another's: when the bootstrap 95%
/// confidence intervals of their medians do not overlap, or else when a two-sided Mann-Whitney U
/// test on the per-operation sample times gives p < 0.05 (the direction then from the medians).
struct MedianDifference: Equatable, Sendable {
    enum Direction: Equatable, Sendable { case lower, higher, notSignificant }

    static let alpha = 0.05
    /// Differences smaller than this fraction of the baseline's median are not counted, however
    /// significant: they flip between runs and no claim is about them. A claim may set a larger one.
    static let minimumEffect = 0.05

    var direction: Direction
    var words: String
    var minimumEffect: Double
    /// result / baseline at the ends of both medians' 95% intervals: the smallest and largest ratio
    /// the two intervals allow. Nil when the baseline's interval reaches zero.
    var ratioBounds: ClosedRange<Double>?

    init(_ result: BenchmarkResult, comparedTo baseline: BenchmarkResult, minimumEffect: Double = Self.minimumEffect) {
        let a = result.wallTime.medianConfidenceInterval
        let b = baseline.wallTime.medianConfidenceInterval
        self.minimumEffect = minimumEffect
        ratioBounds =
            b.lower > 0 && a.lower >= 0 && a.lower <= a.upper && b.lower <= b.upper
            ? (a.lower / b.upper)...(a.upper / b.lower) : nil
        let effect = baseline.wallTime.median > 0 ? abs(result.wallTime.median / baseline.wallTime.median - 1) : 0
        if effect < minimumEffect {
            direction = .notSignificant
            words = String(format: "no meaningful difference (medians within %.0f%%)", minimumEffect * 100)
            return
        }
        if a.upper < b.lower || a.lower > b.upper {
            direction = a.upper < b.lower ? .lower : .higher
            words = "significantly \(direction == .lower ? "faster" : "slower") (95% CIs of the median do not overlap)"
            return
        }
        let test = MannWhitneyU.test(result.wallNanosecondsPerOperation, baseline.wallNanosecondsPerOperation)
        let p = String(format: "%.3g", test.pValue)
        if test.pValue < Self.alpha && result.wallTime.median != baseline.wallTime.median {
            direction = result.wallTime.median < baseline.wallTime.median ? .lower : .higher
            words = "significantly \(direction == .lower ? "faster" : "slower") (CIs overlap, Mann-Whitney p = \(p))"
        } else {
            direction = .notSignificant
            words = "no significant difference (CIs overlap, Mann-Whitney p = \(p))"
        }
    }
}

extension MedianDifference {
    /// Words saying that the intervals rule out a difference of at least the minimum effect in
    /// `claimed` (even at the ends of both intervals most favourable to it), or nil when they do not.
    /// A claim of that direction then did not hold: "no difference found" is a finding, and calling
    /// it undecided would only leave it to turn the next run's way.
    func refutation(of claimed: Direction) -> String? {
        guard direction == .notSignificant, let bounds = ratioBounds else { return nil }
        let ruledOut: Bool
        switch claimed {
        case .lower: ruledOut = bounds.lowerBound > 1 - minimumEffect
        case .higher: ruledOut = bounds.upperBound < 1 + minimumEffect
        case .notSignificant: ruledOut = false
        }
        guard ruledOut else { return nil }
        return String(
            format: "; the intervals allow %.2f–%.2f×, which rules out %@ by %.0f%% or more", bounds.lowerBound,
            bounds.upperBound, claimed == .lower ? "faster" : "slower", minimumEffect * 100)
    }
}

enum Describe {
    /// "1.52 ns/op [1.50–1.55]".
    static func median(_ result: BenchmarkResult) -> String {
        let ci = result.wallTime.medianConfidenceInterval
        return "\(duration(result.wallTime.median))/op [\(duration(ci.lower))–\(duration(ci.upper))]"
    }

    static func duration(_ nanoseconds: Double) -> String { UnitFormatting.duration(nanoseconds: nanoseconds) }

    /// "2.4×" (how many times slower `result` is than `baseline`).
    static func ratio(_ result: BenchmarkResult, _ baseline: BenchmarkResult) -> String {
        guard baseline.wallTime.median > 0 else { return "n/a" }
        return String(format: "%.2f×", result.wallTime.median / baseline.wallTime.median)
    }
}

/// How the binary under test was built; verdicts about the optimizer only mean something at -O.
enum BuildConfiguration {
    #if DEBUG
        static let isOptimized = false
        static let note =
            "debug build (-Onone, no whole-module optimisation): compiled forms are not what a release build does"
    #else
        static let isOptimized = true
        static let note = "release build (-O, whole-module optimisation)"
    #endif
}
