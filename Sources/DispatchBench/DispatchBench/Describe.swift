import Foundation
import Harness
import PerfReport

/// Times as claim evidence writes them.
enum Describe {
    /// "1.52 ns/op [1.50–1.55]".
    static func median(_ result: BenchmarkResult) -> String {
        let ci = result.wallTime.medianConfidenceInterval
        return "\(duration(result.wallTime.median))/op [\(duration(ci.lower))–\(duration(ci.upper))]"
    }

    static func duration(_ nanoseconds: Double) -> String { UnitFormatting.duration(nanoseconds: nanoseconds) }
}
