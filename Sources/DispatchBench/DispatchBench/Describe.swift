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

extension Describe {
    /// "the machine was busy (other runnable tasks averaged 1.8 around this case's 150 samples and 1.6
    /// around lock-pthread-mutex-r99's, while its 2 threads needed 2 of 2 CPUs: over 0.75 means they
    /// waited for them)": the first clause of a busy claim's evidence, and so its summary in the findings.
    static func busyMachine(_ busy: BusyMachine) -> String {
        let sides = busy.sides.map { side in
            let count = side.otherRunnable.map { String(format: "%.1f", $0) } ?? "unknown"
            return "\(count) around \(side.label)'s \(side.samples) samples"
        }
        return "the machine was busy (other runnable tasks averaged \(sides.joined(separator: " and ")), "
            + "while its \(busy.cpusNeeded) threads needed \(busy.cpusNeeded) of \(busy.processors) CPUs: "
            + String(format: "over %g means they waited for them)", busy.allowance)
    }

    /// A verdict as claim evidence words it: "held", "did not hold", "inconclusive".
    static func verdict(_ verdict: Claim.Verdict) -> String {
        switch verdict {
        case .held: "held"
        case .didNotHold: "did not hold"
        case .inconclusive: "inconclusive"
        }
    }
}
