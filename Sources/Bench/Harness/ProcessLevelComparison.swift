import Foundation
import PerfReport
import PerfStatistics

/// A time comparison whose unit is the process, not the sample: a median moves between processes (hash
/// seed, layout, the machine's minute) by more than samples vary within one, so the current side's level
/// (log scale) counts as one new draw from the baseline's processes, a t prediction interval: a
/// difference inside their spread is no change (docs/regression-gate.md, "Per-process levels, measured and used").
package struct ProcessLevelComparison: Equatable {
    /// Geometric means of each side's process medians.
    var baselineLevel: Double
    var currentLevel: Double
    var baselineProcesses: Int
    var currentProcesses: Int
    /// currentLevel / baselineLevel.
    var ratio: Double
    var ratioInterval: ConfidenceInterval
    var pValue: Double

    /// What the current side's processes are worth.
    package enum Model: Sendable, Equatable {
        /// One draw however many processes it ran, the baseline's spread its spread: the first look
        /// of a candidate measured in one stretch of the machine's time.
        case currentAsOneDraw
        /// Each process one draw, the spread pooled from both sides (two-sample t): for processes
        /// taken look after look with the machine's factor divided out, or interleaved with the
        /// baseline's build, so that no stretch of time lands on one side only.
        case independentDraws
        /// The i-th processes of the two sides as a pair run back to back (the gate's interleaved
        /// looks): a one-sample t on their log ratios, so that a minute both shared drops out. Sides
        /// of unequal counts are compared as independent draws.
        case pairedDraws
    }

    /// Nil unless both sides have per-process medians, every one positive, and together at least
    /// three (one side with two, so that the spread between processes can be estimated at all).
    init?(baseline: [Double], current: [Double], confidenceLevel: Double, model: Model = .currentAsOneDraw) {
        guard !baseline.isEmpty, !current.isEmpty, baseline.count + current.count >= 3,
            baseline.count >= 2 || current.count >= 2,
            (baseline + current).allSatisfy({ $0 > 0 && $0.isFinite })
        else { return nil }
        let old = baseline.map { log($0) }
        let new = current.map { log($0) }
        let oldMean = old.reduce(0, +) / Double(old.count)
        let newMean = new.reduce(0, +) / Double(new.count)
        func squares(_ values: [Double], _ mean: Double) -> Double {
            values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        }
        let spread: Double
        let degreesOfFreedom: Double
        let standardError: Double
        switch model {
        case .currentAsOneDraw:
            // The spread between processes from the baseline's, which ran over a longer time than a
            // candidate's few; from the current side's only when the baseline ran in one process.
            let (reference, referenceMean) = old.count >= 2 ? (old, oldMean) : (new, newMean)
            degreesOfFreedom = Double(reference.count - 1)
            spread = (squares(reference, referenceMean) / degreesOfFreedom).squareRoot()
            // Two processes that happen to agree say little about a third: no spread to stand on.
            guard spread > 0 || reference.count >= 3 else { return nil }
            // The current side counts as one process however many it ran: they ran one after another,
            // in one state of the machine, so averaging them removes their own differences (hash seeds,
            // layout) but not the machine's drift; as independent draws, a candidate's slow minute called
            // innocent benchmarks regressed (docs/regression-gate.md, "Per-process levels, measured and used").
            standardError = spread * (1 / Double(old.count) + 1).squareRoot()
        case .pairedDraws where old.count == new.count:
            let differences = zip(old, new).map { $1 - $0 }
            degreesOfFreedom = Double(differences.count - 1)
            guard degreesOfFreedom >= 1 else { return nil }
            let meanDifference = newMean - oldMean
            spread = (squares(differences, meanDifference) / degreesOfFreedom).squareRoot()
            guard spread > 0 || degreesOfFreedom >= 2 else { return nil }
            standardError = spread / Double(differences.count).squareRoot()
        case .independentDraws, .pairedDraws:
            degreesOfFreedom = Double(old.count + new.count - 2)
            spread = ((squares(old, oldMean) + squares(new, newMean)) / degreesOfFreedom).squareRoot()
            guard spread > 0 || degreesOfFreedom >= 2 else { return nil }
            standardError = spread * (1 / Double(old.count) + 1 / Double(new.count)).squareRoot()
        }
        let difference = newMean - oldMean

        baselineLevel = exp(oldMean)
        currentLevel = exp(newMean)
        baselineProcesses = old.count
        currentProcesses = new.count
        ratio = exp(difference)
        if standardError > 0 {
            pValue = StudentT.twoSidedPValue(difference / standardError, degreesOfFreedom: degreesOfFreedom)
            let halfWidth =
                StudentT.quantile(1 - (1 - confidenceLevel) / 2, degreesOfFreedom: degreesOfFreedom) * standardError
            ratioInterval = ConfidenceInterval(
                lower: exp(difference - halfWidth), upper: exp(difference + halfWidth), level: confidenceLevel)
        } else {
            // Every process gave the same median on both sides: an exact answer.
            pValue = difference == 0 ? 1 : 0
            ratioInterval = ConfidenceInterval(lower: ratio, upper: ratio, level: confidenceLevel)
        }
    }
}
