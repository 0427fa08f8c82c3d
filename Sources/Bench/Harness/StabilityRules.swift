import Foundation
import PerfReport

/// Rules that mark a result "unstable": its spread is too wide to trust a comparison against it.
///
/// Each warning carries a stable rule id (for scripts and the HTML report) and a message with the
/// numbers that made it fire. The thresholds follow from the default regression threshold of 5%:
///
/// - `cv-above-5-percent`: a coefficient of variation above 5% means single samples routinely
///   differ by more than the change we want to detect.
/// - `ci-wider-than-10-percent-of-median`: the 95% interval of the median spans more than 10% of
///   the median, i.e. a half-width above 5%; the median itself is then uncertain by as much as
///   the threshold, so a 5% change cannot be resolved. (The CV rule looks at single samples, this
///   one at the estimate a comparison actually uses.)
/// - `severe-outliers`: at least 10% of the samples lie beyond 3 × IQR of the quartiles; one in
///   ten samples was disturbed badly (preemption, page faults, frequency changes).
/// - `too-few-samples`: fewer than 5 samples; quartiles, fences and the bootstrap mean little.
/// - `median-not-positive`: the median is 0 or below after the clock overhead was subtracted; the
///   operation is too small to measure and ratios against it are undefined.
public enum StabilityRules {
    public static let maximumCoefficientOfVariation = 0.05
    public static let maximumRelativeIntervalWidth = 0.10
    public static let maximumSevereOutlierFraction = 0.10
    public static let minimumSampleCount = 5

    /// The rules `stats` breaks. `samples` are the samples the statistics were computed from;
    /// when they carry context-switch counts, the messages say how many samples were preempted,
    /// which is usually why the spread is wide on a shared machine. `unit` is the statistics' unit.
    public static func warnings(for stats: Statistics, samples: [Sample], unit: String = "ns/op") -> [Warning] {
        var warnings: [Warning] = []
        let preemption = preemptionNote(samples)
        if stats.count < minimumSampleCount {
            warnings.append(
                Warning(
                    rule: "too-few-samples",
                    message: "only \(stats.count) samples "
                        + "(at least \(minimumSampleCount) are needed to judge the spread)"
                ))
        }
        if stats.count > 0 && stats.median <= 0 {
            warnings.append(
                Warning(
                    rule: "median-not-positive",
                    message: "median is \(format(stats.median)) \(unit) after subtracting the clock overhead; "
                        + "the operation is too small to measure"))
        }
        // Below the floor (an empty body) the values are clock noise over ~10^12 iterations:
        // relative spreads of nothing say nothing, so the relative rules stay quiet.
        guard stats.median >= Comparator.measurableFloorNanoseconds || unit != "ns/op" else { return warnings }
        if stats.coefficientOfVariation > maximumCoefficientOfVariation {
            warnings.append(
                Warning(
                    rule: "cv-above-5-percent",
                    message: "coefficient of variation is \(percent(stats.coefficientOfVariation)) "
                        + "(above \(percent(maximumCoefficientOfVariation)))\(preemption)"))
        }
        if stats.median > 0 {
            let interval = stats.medianConfidenceInterval
            let relativeWidth = (interval.upper - interval.lower) / stats.median
            if relativeWidth > maximumRelativeIntervalWidth {
                warnings.append(
                    Warning(
                        rule: "ci-wider-than-10-percent-of-median",
                        message: "\(percent(interval.level, digits: 0)) interval of the median "
                            + "\(format(interval.lower))…\(format(interval.upper)) \(unit) "
                            + "spans \(percent(relativeWidth)) of the median \(format(stats.median)) \(unit) "
                            + "(above \(percent(maximumRelativeIntervalWidth)))"
                            + preemption))
            }
        }
        let severe = stats.outliers.lowSevere + stats.outliers.highSevere
        if stats.count > 0 && severe > 0
            && Double(severe) >= maximumSevereOutlierFraction * Double(stats.count)
        {
            warnings.append(
                Warning(
                    rule: "severe-outliers",
                    message: "\(severe) of \(stats.count) samples are severe outliers (beyond 3 × IQR; "
                        + "\(stats.outliers.lowSevere) low, \(stats.outliers.highSevere) high)\(preemption)"))
        }
        return warnings
    }

    private static func preemptionNote(_ samples: [Sample]) -> String {
        let counted = samples.compactMap(\.involuntaryContextSwitches)
        guard !counted.isEmpty else { return "" }
        let preempted = counted.filter { $0 > 0 }.count
        guard preempted > 0 else { return "" }
        return "; \(preempted) of \(counted.count) samples were preempted (involuntary context switches)"
    }

    private static func percent(_ fraction: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f%%", fraction * 100)
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.4g", value)
    }
}
