import Foundation
import PerfReport
import PerfStatistics

/// Compares a run with a baseline, benchmark by benchmark, and gives each a verdict.
///
/// For a sampled metric (wall time by default) a verdict needs two things: statistical
/// significance (two-sided Mann–Whitney U, p-values Holm-adjusted across every benchmark compared,
/// so an unchanged run of hundreds of benchmarks is not expected to flag any) and an effect
/// beyond the threshold (ratio of medians ≥ 1 + t/100 is a regression, ≤ 1/(1 + t/100) an
/// improvement, i.e. t% slower or t% faster) whose bootstrap interval excludes 1 (no change).
/// The ratio's bootstrap interval also decides between "no
/// change" and "within noise" when the test is not significant: if the interval reaches beyond
/// the threshold, a change of that size cannot be ruled out.
///
/// For an exact count (instructions, allocations per operation) there is no noise to test
/// against: a change beyond the threshold is a verdict by itself.
///
/// The rules that turn these figures into a verdict are in `RegressionGate.swift`, with everything
/// else that makes or unmakes a regression; a gate's comparison goes through ``RegressionGate``.
public struct Comparator: Sendable {
    /// Default regression threshold in percent; a benchmark's own `thresholdPercent` wins.
    public var thresholdPercent: Double
    /// Significance level, applied to Holm-adjusted p-values.
    public var alpha: Double
    /// Level of the bootstrap interval of the ratio of medians.
    public var confidenceLevel: Double
    public var resamples: Int
    /// What a candidate's processes are worth when levels of processes are compared: one draw by
    /// default; the gate's later looks (``RegressionGate/MoreProcesses``) count each.
    package var processModel = ProcessLevelComparison.Model.currentAsOneDraw

    public static let multipleComparisonControl = "holm"

    /// Times per operation below this (in ns) are indistinguishable from zero: a few ns of clock
    /// noise divided by a huge iteration count.
    public static let measurableFloorNanoseconds = 0.001

    /// An exact count must change by at least this much per operation, besides the threshold, to
    /// count: a single allocation by the runtime spread over thousands of iterations is not a
    /// regression of the benchmarked code.
    public static let minimumCountDifference = 0.5

    public init(
        thresholdPercent: Double = 5, alpha: Double = 0.05, confidenceLevel: Double = 0.95, resamples: Int = 2000
    ) {
        precondition(thresholdPercent >= 0, "threshold must not be negative")
        precondition(alpha > 0 && alpha < 1, "alpha must be in (0, 1)")
        precondition(confidenceLevel > 0 && confidenceLevel < 1, "confidence level must be in (0, 1)")
        precondition(resamples > 0, "at least one bootstrap resample is needed")
        self.thresholdPercent = thresholdPercent
        self.alpha = alpha
        self.confidenceLevel = confidenceLevel
        self.resamples = resamples
    }

    /// Compares wall time per operation.
    package func compare(baseline: Report, current: Report) -> Comparison {
        compare(baseline: baseline, current: current, metric: .wallTime)
    }

    /// Compares `metric`. Wall time, CPU time, cycles and context switches are compared sample by
    /// sample with the significance test; instructions and allocations per operation are exact
    /// counts and compared directly. A benchmark that lacks the metric on either side is compared
    /// by wall time instead, and its entry says so (``ComparisonEntry/metric`` is then `.wallTime`).
    /// `tested`: the benchmarks whose verdicts are asked for, the family Holm adjusts over (nil: every
    /// one); the others, measured only for the machine's factor, are adjusted over all, as before.
    package func compare(
        baseline: Report, current: Report, metric: Metric, tested family: Set<String>? = nil
    ) -> Comparison {
        let baselineByID = Dictionary(baseline.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let currentByID = Dictionary(current.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ids = Set(baselineByID.keys).union(currentByID.keys).sorted()

        let machine = MachineFactors.of(baseline: baseline, current: current, metric: metric)
        var outcomes: [Outcome] = []
        for id in ids {
            switch (baselineByID[id], currentByID[id]) {
            case (let old?, let new?):
                outcomes.append(outcome(id: id, baseline: old, current: new, metric: metric, machine: machine))
            case (let old?, nil):
                outcomes.append(.decided(onlyOneSide(old, inBaseline: true)))
            case (nil, let new?):
                outcomes.append(.decided(onlyOneSide(new, inBaseline: false)))
            case (nil, nil):
                continue
            }
        }

        let tested = outcomes.compactMap { outcome -> (id: String, pValue: Double)? in
            if case .tested(let figures, let pValue) = outcome { return (figures.id, pValue) }
            return nil
        }
        let inFamily = tested.filter { family?.contains($0.id) ?? true }
        let adjustedInFamily = Dictionary(
            uniqueKeysWithValues:
                zip(inFamily.map(\.id), Self.holmAdjusted(inFamily.map(\.pValue))))
        // Without a family every benchmark is in it: the one adjustment serves all.
        let adjustedOverAll =
            family == nil
            ? adjustedInFamily
            : Dictionary(uniqueKeysWithValues: zip(tested.map(\.id), Self.holmAdjusted(tested.map(\.pValue))))
        let entries = outcomes.map { outcome -> ComparisonEntry in
            switch outcome {
            case .decided(let entry):
                return entry
            case .tested(let figures, let pValue):
                if let adjusted = adjustedInFamily[figures.id] {
                    return decide(figures, pValue: pValue, adjustedPValue: adjusted, testCount: inFamily.count)
                }
                return decide(
                    figures, pValue: pValue, adjustedPValue: adjustedOverAll[figures.id]!, testCount: tested.count)
            }
        }
        return Comparison(
            baselineCreatedAt: baseline.createdAt, baselineEnvironment: baseline.environment,
            thresholdPercent: thresholdPercent, alpha: alpha,
            multipleComparisonControl: Self.multipleComparisonControl, entries: entries)
    }

    /// Compares one benchmark's samples (wall time per operation in ns, unless `metric` says
    /// otherwise) on its own, without multiple-comparison adjustment (`adjustedPValue` equals
    /// `pValue`). `thresholdPercent` defaults to the comparator's.
    package func compareSamples(
        id: String, baseline: [Double], current: [Double], thresholdPercent: Double? = nil,
        metric: Metric = .wallTime
    ) -> ComparisonEntry {
        let threshold = thresholdPercent ?? self.thresholdPercent
        switch measure(
            id: id, baseline: baseline, current: current, metric: metric, threshold: threshold, substitution: nil,
            processes: nil, busy: nil, machine: nil)
        {
        case .decided(let entry):
            return entry
        case .tested(let figures, let pValue):
            return decide(figures, pValue: pValue, adjustedPValue: pValue, testCount: 1)
        }
    }

    /// Holm–Bonferroni adjusted p-values, in the input's order: the i-th smallest p-value (from 1)
    /// of m is multiplied by m − i + 1, capped at 1, and made monotone so that a smaller raw
    /// p-value never gets a larger adjusted one. Controls the family-wise error rate at alpha
    /// without assuming independence, and rejects at least as much as plain Bonferroni.
    package static func holmAdjusted(_ pValues: [Double]) -> [Double] {
        let order = pValues.indices.sorted { (pValues[$0], $0) < (pValues[$1], $1) }
        var adjusted = [Double](repeating: 1, count: pValues.count)
        var running = 0.0
        for (rank, index) in order.enumerated() {
            running = max(running, min(1, Double(pValues.count - rank) * pValues[index]))
            adjusted[index] = running
        }
        return adjusted
    }

    // MARK: - Measuring one benchmark

    /// A benchmark present on both sides: either decided already (exact counts, no samples) or
    /// waiting for its adjusted p-value.
    enum Outcome {
        case decided(ComparisonEntry)
        case tested(Figures, pValue: Double)
    }

    /// The figures of one benchmark's comparison, gathered before its verdict, and the one place an
    /// entry is made from them.
    struct Figures {
        var id: String
        var metric: Metric
        var thresholdPercent: Double
        var baselineMedian: Double? = nil
        var currentMedian: Double? = nil
        /// nil when the baseline median is 0 or below (nothing measurable to divide by).
        var ratio: Double? = nil
        var ratioInterval: ConfidenceInterval? = nil
        /// Why another metric than the one asked for was compared, e.g. a busy machine.
        var substitution: ComparisonReason.Substitution? = nil
        /// How many processes each side's level came from, when the ratio, its interval and the
        /// p-value compare per-process medians (``ProcessLevelComparison``) rather than samples.
        var processes: ComparisonReason.PerSide<Int>? = nil
        /// Set when one side waited for a CPU and CPU time was compared instead of wall time: a
        /// verdict short of regressed or improved is then inconclusive.
        var busy: MachineContention? = nil
        /// Which process levels were compared, when processes were.
        var processLevels: ComparisonReason.ProcessLevelBasis? = nil
        /// Set when the levels were relative and the machine's factor moved too far for them
        /// (``MachineFactors/moved(_:)``): a verdict on them is then inconclusive.
        var machineMoved: ComparisonReason.Review? = nil
        /// Set when processes in which the machine moved were left out (``MachineFactors/leftOut(_:)``).
        var processesLeftOut: ComparisonReason.Review? = nil

        func entry(
            _ verdict: ComparisonEntry.Verdict, _ finding: ComparisonReason.Finding, pValue: Double? = nil,
            adjustedPValue: Double? = nil
        ) -> ComparisonEntry {
            var entry = ComparisonEntry(
                id: id, metric: metric, thresholdPercent: thresholdPercent, verdict: verdict,
                reason: ComparisonReason(finding, substitution: substitution, processLevels: processLevels))
            entry.baselineMedian = baselineMedian
            entry.currentMedian = currentMedian
            entry.ratio = ratio
            entry.ratioConfidenceInterval = ratioInterval
            entry.pValue = pValue
            entry.adjustedPValue = adjustedPValue
            return entry
        }
    }

    func outcome(
        id: String, baseline: BenchmarkResult, current: BenchmarkResult, metric: Metric,
        machine: [Metric: MachineFactors] = [:]
    ) -> Outcome {
        let threshold = current.thresholdPercent ?? baseline.thresholdPercent ?? thresholdPercent
        if let exact = Self.exactCount(metric) {
            if let old = baseline[keyPath: exact], let new = current[keyPath: exact] {
                return .decided(exactEntry(id: id, metric: metric, baseline: old, current: new, threshold: threshold))
            }
        } else if let old = Self.sampledValues(baseline, metric), let new = Self.sampledValues(current, metric) {
            let processes = Self.processes(baseline, current)
            let wall = measure(
                id: id, baseline: old, current: new, metric: metric, threshold: threshold, substitution: nil,
                processes: processes, busy: nil, machine: machine[metric])
            if metric == .wallTime, let busy = MachineContention(baseline: baseline, current: current),
                busy.couldExplain(
                    baselineWallMedian: SampleStatistics.median(old), currentWallMedian: SampleStatistics.median(new)),
                !(busy.currentWasBusier && Self.staysInside(wall, threshold: threshold)),
                let oldCPU = Self.sampledValues(baseline, .cpuTime), let newCPU = Self.sampledValues(current, .cpuTime)
            {
                // Waiting for a CPU shows in wall time only: judge on the time spent computing. (A
                // busy run whose wall time stayed inside the threshold anyway passed on wall time.)
                return measure(
                    id: id, baseline: oldCPU, current: newCPU, metric: .cpuTime, threshold: threshold,
                    substitution: busy.substitution, processes: processes, busy: busy, machine: machine[.cpuTime])
            }
            return wall
        }
        return measure(
            id: id, baseline: baseline.wallNanosecondsPerOperation, current: current.wallNanosecondsPerOperation,
            metric: .wallTime, threshold: threshold, substitution: metric == .wallTime ? nil : .notMeasured(metric),
            processes: Self.processes(baseline, current), busy: nil, machine: machine[.wallTime])
    }

    /// Whether a measured change's ratio interval lies inside ±`threshold`%: waiting for a CPU only
    /// adds wall time, so a busy side that stayed inside it computed no slower either.
    static func staysInside(_ outcome: Outcome, threshold: Double) -> Bool {
        guard case .tested(let figures, _) = outcome, let interval = figures.ratioInterval else { return false }
        let limit = 1 + threshold / 100
        return interval.upper < limit && interval.lower > 1 / limit
    }

    /// Each side's sample processes, when either side was measured in several processes.
    static func processes(_ baseline: BenchmarkResult, _ current: BenchmarkResult) -> ProcessTags? {
        let tags = ProcessTags(
            baseline: ProcessFactors.processes(of: baseline), current: ProcessFactors.processes(of: current))
        return tags.baseline == nil && tags.current == nil ? nil : tags
    }

    /// The process of each sample of each side; nil for a side measured in one process.
    struct ProcessTags {
        var baseline: [Int]?
        var current: [Int]?
    }

    func measure(
        id: String, baseline: [Double], current: [Double], metric: Metric, threshold: Double,
        substitution: ComparisonReason.Substitution?, processes: ProcessTags?, busy: MachineContention?,
        machine: MachineFactors?
    ) -> Outcome {
        var figures = Figures(
            id: id, metric: metric, thresholdPercent: threshold, substitution: substitution, busy: busy)
        guard !baseline.isEmpty, !current.isEmpty else {
            figures.baselineMedian = baseline.isEmpty ? nil : SampleStatistics.median(baseline)
            figures.currentMedian = current.isEmpty ? nil : SampleStatistics.median(current)
            return .decided(figures.entry(.withinNoise, .noSamples(in: baseline.isEmpty ? .baseline : .current)))
        }
        let sortedBaseline = SampleStatistics.sortedTotally(baseline)
        let sortedCurrent = SampleStatistics.sortedTotally(current)
        let baselineMedian = SampleStatistics.quantile(sortedBaseline, 0.5)
        let currentMedian = SampleStatistics.quantile(sortedCurrent, 0.5)
        figures.baselineMedian = baselineMedian
        figures.currentMedian = currentMedian
        if metric == .wallTime || metric == .cpuTime,
            max(baselineMedian, currentMedian) < Self.measurableFloorNanoseconds
        {
            // An empty body: both sides are clock noise spread over ~10^12 iterations.
            return .decided(
                figures.entry(.noChange, .belowMeasurableFloor(nanoseconds: Self.measurableFloorNanoseconds)))
        }
        if let processes {
            var old = ProcessFactors.medianByProcess(
                baseline, processes: processes.baseline ?? Array(repeating: 0, count: baseline.count))
            var new = ProcessFactors.medianByProcess(
                current, processes: processes.current ?? Array(repeating: 0, count: current.count))
            if let machine {
                (figures.processLevels, figures.machineMoved, figures.processesLeftOut) = machine.divide(
                    id: id, baseline: &old, current: &new
                ) { raw in
                    ProcessLevelComparison(
                        baseline: raw.baseline, current: raw.current, confidenceLevel: confidenceLevel,
                        model: processModel)?.ratioInterval
                }
            }
            guard
                let levels = ProcessLevelComparison(
                    baseline: old.keys.sorted().map { old[$0]! }, current: new.keys.sorted().map { new[$0]! },
                    confidenceLevel: confidenceLevel, model: processModel)
            else {
                // Measured in processes, whose spread is what a verdict needs, but it cannot be told
                // (a median not above zero, or processes too few and all alike): no verdict, rather
                // than the sample-level test that per-process levels fool.
                figures.ratio = baselineMedian > 0 ? currentMedian / baselineMedian : nil
                return .decided(figures.entry(busy == nil ? .withinNoise : .inconclusive, .processSpreadUnknown))
            }
            figures.baselineMedian = levels.baselineLevel
            figures.currentMedian = levels.currentLevel
            figures.ratio = levels.ratio
            figures.ratioInterval = levels.ratioInterval
            figures.processes = ComparisonReason.PerSide(
                baseline: levels.baselineProcesses, current: levels.currentProcesses)
            return .tested(figures, pValue: levels.pValue)
        }
        let test = MannWhitneyU.test(baseline, current)
        if baselineMedian > 0 {
            figures.ratio = currentMedian / baselineMedian
            figures.ratioInterval = ratioInterval(
                sortedBaseline, sortedCurrent, estimate: currentMedian / baselineMedian)
        }
        return .tested(figures, pValue: test.pValue)
    }

    /// Percentile bootstrap interval of current median / baseline median, resampling each side
    /// independently, seeded from both sides' values so it is the same on every analysis.
    /// Resamples whose baseline median is not positive are skipped (they have no ratio); the
    /// interval is widened to contain the estimate, as for the median's own interval.
    func ratioInterval(_ sortedBaseline: [Double], _ sortedCurrent: [Double], estimate: Double) -> ConfidenceInterval {
        var generator = SplitMix64(seed: Bootstrap.seed(sortedBaseline, sortedCurrent))
        var baselineCounts = [Int](repeating: 0, count: sortedBaseline.count)
        var currentCounts = [Int](repeating: 0, count: sortedCurrent.count)
        var ratios: [Double] = []
        ratios.reserveCapacity(resamples)
        for _ in 0..<resamples {
            let old = Bootstrap.resampledMedian(of: sortedBaseline, counts: &baselineCounts, using: &generator)
            let new = Bootstrap.resampledMedian(of: sortedCurrent, counts: &currentCounts, using: &generator)
            if old > 0 { ratios.append(new / old) }
        }
        guard !ratios.isEmpty else {
            return ConfidenceInterval(lower: estimate, upper: estimate, level: confidenceLevel)
        }
        let (lower, upper) = Bootstrap.percentileInterval(&ratios, level: confidenceLevel)
        return ConfidenceInterval(lower: min(lower, estimate), upper: max(upper, estimate), level: confidenceLevel)
    }

    func onlyOneSide(_ result: BenchmarkResult, inBaseline: Bool) -> ComparisonEntry {
        let values = result.wallNanosecondsPerOperation
        let median = values.isEmpty ? nil : SampleStatistics.median(values)
        let figures = Figures(
            id: result.id, metric: .wallTime, thresholdPercent: result.thresholdPercent ?? thresholdPercent,
            baselineMedian: inBaseline ? median : nil, currentMedian: inBaseline ? nil : median)
        return inBaseline
            ? figures.entry(.removed, .onlyInBaseline) : figures.entry(.added, .onlyInCurrentRun)
    }

    // MARK: - Metrics

    /// The per-operation value of each sample, when every sample has the metric.
    static func sampledValues(_ result: BenchmarkResult, _ metric: Metric) -> [Double]? {
        func perOperation(_ value: (Sample) -> Double?) -> [Double]? {
            var values: [Double] = []
            for sample in result.samples {
                guard let value = value(sample) else { return nil }
                values.append(value / Double(max(sample.iterations, 1)))
            }
            return values
        }
        switch metric {
        case .wallTime:
            return result.wallNanosecondsPerOperation
        case .cpuTime:
            return perOperation(\.cpuNanoseconds)
        case .cycles:
            return perOperation(\.cycles)
        case .contextSwitches:
            return perOperation { sample in
                guard let voluntary = sample.voluntaryContextSwitches,
                    let involuntary = sample.involuntaryContextSwitches
                else { return nil }
                return Double(voluntary + involuntary)
            }
        case .instructions, .allocations:
            return nil
        }
    }

    /// Where an exact per-operation count lives, for the metrics that are compared without a test.
    static func exactCount(_ metric: Metric) -> KeyPath<BenchmarkResult, Double?>? {
        switch metric {
        case .instructions: return \.instructionsPerOperation
        case .allocations: return \.allocationsPerOperation
        case .wallTime, .cpuTime, .cycles, .contextSwitches: return nil
        }
    }
}
