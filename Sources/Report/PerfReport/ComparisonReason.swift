/// Why a comparison entry has its verdict, with the figures the words need: the comparator's
/// finding as data, not as a sentence, saved in the report. ``ComparisonWording`` is the one place
/// that words it (the entry's `explanation`), so a library that compares never writes prose, and a
/// test can ask what was found rather than search the words. The metric and the threshold are the entry's.
public struct ComparisonReason: Codable, Sendable, Equatable {
    /// Why another metric than the one asked for was compared, when one was.
    public var substitution: Substitution?
    public var finding: Finding
    /// What looking at the verdict again found, in the order it was done: a busy machine, the other
    /// benchmarks moving too, a re-run.
    public var reviews: [Review]
    /// Which process levels a comparison in processes was made on; nil when samples were compared,
    /// and in reports of older perfkits.
    public var processLevels: ProcessLevelBasis?

    public init(
        _ finding: Finding, substitution: Substitution? = nil, reviews: [Review] = [],
        processLevels: ProcessLevelBasis? = nil
    ) {
        self.substitution = substitution
        self.finding = finding
        self.reviews = reviews
        self.processLevels = processLevels
    }

    /// One side of a comparison.
    public enum Side: String, Codable, Sendable, Equatable {
        case baseline, current
    }

    /// A figure of each side.
    public struct PerSide<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        public var baseline: Value
        public var current: Value

        public init(baseline: Value, current: Value) {
            self.baseline = baseline
            self.current = current
        }
    }

    public enum Substitution: Codable, Sendable, Equatable {
        /// One side waited for a CPU, so CPU time was compared instead of wall time. The evidence:
        /// each side's share of its wall time on a CPU (Σ CPU time / Σ wall time of its samples),
        /// the busier side's the smaller, and its involuntary context switches per second.
        case busyMachine(onCPU: PerSide<Double>, switchesPerSecond: PerSide<Double>)
        /// The metric asked for was not measured on both sides, so wall time was compared.
        case notMeasured(Metric)

        enum NotMeasuredCodingKeys: String, CodingKey { case _0 = "metric" }
    }

    public enum Finding: Codable, Sendable, Equatable {
        /// The words of a report of schema version 1, which saved no reason.
        case worded(String)
        case onlyInBaseline
        case onlyInCurrentRun
        /// One side has no samples, so nothing can be ruled out.
        case noSamples(in: Side)
        /// Both medians are below this many nanoseconds per operation: clock noise on both sides.
        case belowMeasurableFloor(nanoseconds: Double)
        /// Measured in several processes, but their spread cannot be estimated from so few.
        case processSpreadUnknown
        /// The significance test and the ratio of medians' interval decided; `processes`, each
        /// side's count, is set when the levels of processes were compared rather than samples.
        case tested(
            ratio: Double, interval: ConfidenceInterval, processes: PerSide<Int>?, pValue: AdjustedPValue,
            outcome: TestedOutcome)
        /// The test ran, but the baseline median is not above zero, so there is no ratio.
        case ratioUndefined(baselineMedian: Double, pValue: AdjustedPValue)
        /// An exact count per operation decided, without a test; `ratio` is nil when the baseline
        /// count is zero and the current one is not.
        case counted(baseline: Double, current: Double, ratio: Double?, outcome: CountedOutcome)

        enum WordedCodingKeys: String, CodingKey { case _0 = "explanation" }
    }

    /// The levels a comparison in processes was made on.
    public enum ProcessLevelBasis: Codable, Sendable, Equatable {
        /// Each process's median divided by the machine's common factor in that process, from the
        /// other benchmarks measured there; `factors` each side's, in process order, relative to the
        /// baseline's medians; `rawInterval` the interval the raw medians gave. A factor beyond
        /// ±`boundPercent` is named in the words.
        case relative(factors: PerSide<[Double]>, rawInterval: ConfidenceInterval?, boundPercent: Double)
        /// The raw medians: a process shared by only `otherBenchmarks` other benchmarks (fewer than
        /// `minimum`) cannot tell the machine's factor from this benchmark's own.
        case raw(otherBenchmarks: Int, minimum: Int)
    }

    /// A p-value after adjustment for testing several benchmarks at once.
    public struct AdjustedPValue: Codable, Sendable, Equatable {
        public var value: Double
        /// How many benchmarks were tested together (Holm); 1 when none was adjusted.
        public var tests: Int

        public init(_ value: Double, tests: Int) {
            self.value = value
            self.tests = tests
        }
    }

    public enum TestedOutcome: String, Codable, Sendable, Equatable {
        case regressed, improved
        /// Significant and beyond the threshold, but the ratio's interval includes 1.
        case intervalIncludesNoChange
        /// Significant, and smaller than the threshold with an interval that stays within it.
        case belowThreshold
        /// Significant and smaller than the threshold, but the interval reaches beyond it.
        case belowThresholdIntervalReachesBeyond
        /// Not significant, but the interval reaches beyond the threshold.
        case intervalReachesBeyondThreshold
        /// Not significant, and the interval stays within the threshold.
        case noSignificantChange
    }

    public enum CountedOutcome: Codable, Sendable, Equatable {
        case regressed, improved, identical, belowThreshold
        /// Up from zero.
        case regressedFromNone
        /// A difference per operation below this is the runtime's, not the benchmarked code's.
        case belowMinimumDifference(Double)

        enum BelowMinimumDifferenceCodingKeys: String, CodingKey { case _0 = "perOperation" }
    }

    /// What looking at a verdict again found.
    public enum Review: Codable, Sendable, Equatable {
        /// Neither regressed nor improved while one side waited for a CPU: no verdict either way.
        case busyMachineInconclusive
        /// Slower in CPU time on the side that waited for a CPU: neighbours raise CPU time too, by a
        /// different amount for each benchmark, so a change cannot be told from them.
        case busyMachineCannotTell
        /// The other benchmarks were slower too (by their median ratio), as a slower machine would
        /// make every one, and this one by more than the threshold beyond them (its ratio divided by
        /// theirs is `relativeRatio`).
        case beyondSharedSlowdown(otherBenchmarks: Int, medianRatio: Double, relativeRatio: Double)
        /// The others were slower too, and this one not by the threshold beyond them.
        case withinSharedSlowdown(otherBenchmarks: Int, medianRatio: Double, relativeRatio: Double)
        /// A regression the re-run did not measure.
        case rerunMissing
        /// The re-run found the regression too; the first run's ratio.
        case rerunConfirmed(firstRatio: Double?)
        /// The re-run did not find the first run's regression; the first run's ratio.
        case rerunDidNotConfirm(firstRatio: Double?)
        /// The first look left it undecided (its interval reached beyond the threshold), so the gate
        /// measured it in `addedProcesses` more processes over `looks` looks, each look's interval and
        /// test at the level that keeps all looks together at the comparator's (`firstProcesses`: each
        /// side's at the first look; `interleaved`: that many fresh processes of each build, alternating,
        /// were compared); `decided`: whether a look decided it before the looks ran out.
        case moreProcesses(
            firstProcesses: PerSide<Int>?, addedProcesses: Int, looks: Int, interleaved: Bool, decided: Bool)
        /// The machine's factor lay beyond ±`boundPercent` in `processes` of this run's `of` processes
        /// (from `lowest` to `highest`) and moved within them: dividing out a move that large is not
        /// exact for every benchmark, so a verdict on relative levels is no verdict.
        case machineMoved(processes: Int, of: Int, lowest: Double, highest: Double, boundPercent: Double)
        /// The machine's factor lay beyond ±`boundPercent` and moved within `processes` of this run's
        /// `of` processes, fewer than half (from `lowest` to `highest`): those were left out of the
        /// comparison on relative levels, which the rest decided.
        case processesLeftOut(processes: Int, of: Int, lowest: Double, highest: Double, boundPercent: Double)
        /// This run's exact counts disagreed between its samples by `spreadPercent` (more than a
        /// count to gate on may), but every sample lay beyond the threshold on the same side.
        case beyondSampleWobble(spreadPercent: Double)
    }
}
