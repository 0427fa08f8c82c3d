import Foundation
import PerfReport

/// Whether one benchmark's median wall time differs significantly from another's: only when
/// their bootstrap 95% confidence intervals of the median do not overlap.
enum MedianDifference: Equatable, Sendable {
    case lower, higher, notSignificant

    init(_ result: BenchmarkResult, comparedTo baseline: BenchmarkResult) {
        let a = result.wallTime.medianConfidenceInterval
        let b = baseline.wallTime.medianConfidenceInterval
        if a.upper < b.lower {
            self = .lower
        } else if a.lower > b.upper {
            self = .higher
        } else {
            self = .notSignificant
        }
    }

    var words: String {
        switch self {
        case .lower: "significantly faster (95% CIs of the median do not overlap)"
        case .higher: "significantly slower (95% CIs of the median do not overlap)"
        case .notSignificant: "no significant difference (95% CIs of the median overlap)"
        }
    }
}

enum Describe {
    /// "1.52 ns/op [1.50–1.55]".
    static func median(_ result: BenchmarkResult) -> String {
        let ci = result.wallTime.medianConfidenceInterval
        return "\(duration(result.wallTime.median))/op [\(duration(ci.lower))–\(duration(ci.upper))]"
    }

    static func duration(_ nanoseconds: Double) -> String {
        switch abs(nanoseconds) {
        case ..<1_000: String(format: "%.3g ns", nanoseconds)
        case ..<1_000_000: String(format: "%.3g µs", nanoseconds / 1_000)
        case ..<1_000_000_000: String(format: "%.3g ms", nanoseconds / 1_000_000)
        default: String(format: "%.3g s", nanoseconds / 1_000_000_000)
        }
    }

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
        static let note = "debug build (-Onone, no whole-module optimisation): compiled forms are not what a release build does"
    #else
        static let isOptimized = true
        static let note = "release build (-O, whole-module optimisation)"
    #endif
}
