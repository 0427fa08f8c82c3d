import Foundation
import PerfStatistics

/// Finds the level shifts in a store's runs: one series per machine × benchmark × metric, in
/// first-parent commit order, each searched with `ChangePointDetector`. Analysis only: plain data
/// in, plain data out (`HistoryWording` words it, `history report` draws it).
public struct ChangeAnalysis {
    /// Benchmarks whose id matches; nil for all.
    public var filter: Regex<AnyRegexOutput>?
    public var metrics: Set<HistoryMetric>
    /// A change smaller than this is not reported (0.02: 2%), unless the benchmark declares its own
    /// threshold, which then applies.
    public var minRelativeShift: Double
    public var maxPValue: Double
    /// Only runs of this machine (its `--machine` name or its label); nil for all.
    public var machine: String?

    public init(
        filter: Regex<AnyRegexOutput>? = nil, metrics: Set<HistoryMetric> = Set(HistoryMetric.allCases),
        minRelativeShift: Double = 0.02, maxPValue: Double = 0.001, machine: String? = nil
    ) {
        self.filter = filter
        self.metrics = metrics
        self.minRelativeShift = minRelativeShift
        self.maxPValue = maxPValue
        self.machine = machine
    }

    /// What the analysis found, and what it left out and why.
    public struct Outcome: Sendable, Equatable {
        /// Regressions first, then improvements, then shifts of the machine (`isMachineShift`); each
        /// newest first.
        public var changes: [HistoryChange]
        /// Series searched (machine × benchmark × metric with at least two runs).
        public var seriesExamined: Int
        /// Runs left out, by reason.
        public var skipped: [SkipReason: Int]
    }

    public enum SkipReason: String, Sendable, Hashable, CaseIterable {
        /// Measured with uncommitted changes: not the commit's numbers.
        case dirty
        /// No git commit recorded (run outside a repository).
        case noCommit
        /// The commit is not on the first-parent history analysed (another branch, or unknown here).
        case offHistory
        /// Another machine than the one asked for.
        case otherMachine
    }

    /// - Parameter order: the first-parent history to follow; nil to use the positions stored
    ///   with the runs (when the analysis runs outside the repository).
    public func analyse(_ runs: [HistoryRun], order: CommitOrder?) -> Outcome {
        let selection = select(runs, order: order)
        let (series, machines, thresholds) = (selection.series, selection.machines, selection.thresholds)
        var changes: [HistoryChange] = []
        var examined = 0
        for (key, unordered) in series {
            guard unordered.count >= 2 else { continue }
            examined += 1
            let points = Self.ordered(unordered, runs: runs)
            let minShift = thresholds[key].map { $0 / 100 } ?? minRelativeShift
            let detector = ChangePointDetector(maxPValue: maxPValue, minRelativeShift: minShift)
            // A new level starts only where the commit changes: runs of one commit are one level.
            let boundaries = Set(points.indices.dropFirst().filter { points[$0].position != points[$0 - 1].position })
            let values = points.map(\.value)
            for point in detector.changePoints(in: values, splittable: boundaries) {
                var change = describe(point, points: points, runs: runs, metric: key.metric)
                change.machine = machines[key.machine]?.label ?? key.machine
                change.benchmark = key.benchmark
                if key.metric.isTime {
                    let instructionSeries = series[
                        SeriesKey(machine: key.machine, benchmark: key.benchmark, metric: .instructions)]
                    change.instructions = Self.instructionMovement(
                        instructionSeries ?? [], before: point.before.map { points[$0].run },
                        after: point.after.map { points[$0].run }, timeShift: point.relativeShift)
                }
                changes.append(change)
            }
        }
        changes.sort {
            if $0.isMachineShift != $1.isMachineShift { return !$0.isMachineShift }
            if $0.isRegression != $1.isRegression { return $0.isRegression }
            if $0.commitPosition != $1.commitPosition { return ($0.commitPosition ?? 0) > ($1.commitPosition ?? 0) }
            return ($0.benchmark, $0.metric, $0.machine) < ($1.benchmark, $1.metric, $1.machine)
        }
        return Outcome(changes: changes, seriesExamined: examined, skipped: selection.skipped)
    }

    private func describe(
        _ point: ChangePointDetector.ChangePoint, points: [Point], runs: [HistoryRun], metric: HistoryMetric
    ) -> HistoryChange {
        let values = points.map(\.value)
        func level(_ range: Range<Int>) -> HistoryChange.Level {
            let interval = ChangePointDetector.levelInterval(values[range])
            return HistoryChange.Level(
                mean: interval.mean, lower: interval.lower, upper: interval.upper, runs: range.count,
                firstCommit: runs[points[range.lowerBound].run].commit ?? "",
                lastCommit: runs[points[range.upperBound - 1].run].commit ?? "")
        }
        let first = points[point.index]
        let previous = points[point.index - 1]
        let executable = Self.executableChange(
            before: points.filter { $0.position == previous.position }.map(\.buildID),
            after: points.filter { $0.position == first.position }.map(\.buildID))
        return HistoryChange(
            benchmark: "", metric: metric, machine: "", commit: runs[first.run].commit ?? "",
            commitPosition: first.position, previousCommit: runs[previous.run].commit ?? "",
            unmeasuredCommits: first.position - previous.position - 1, before: level(point.before),
            after: level(point.after), relativeShift: point.relativeShift, pValue: point.pValue,
            isRegression: point.relativeShift > 0, instructions: nil, executable: executable)
    }

    /// Whether the runs of the commits on both sides of a change ran one executable: then the
    /// same machine code was measured at two levels and the commit cannot have moved it. The split
    /// itself is not forbidden there: searched without it, the step would be pinned on the nearest
    /// commit that did change the executable.
    static func executableChange(before: [String?], after: [String?]) -> HistoryChange.ExecutableChange? {
        let ids = before + after
        guard !before.isEmpty, !after.isEmpty, ids.allSatisfy({ $0 != nil }) else { return nil }
        return Set(ids).count == 1 ? .same : .changed
    }

    /// Whether the instruction count moved where the time did: the mean instruction count of the
    /// same runs on each side. Flat means within 1% and within half the time's shift — an exact
    /// count that moves less than that did not make the time move.
    static func instructionMovement(_ series: [Point], before: [Int], after: [Int], timeShift: Double)
        -> HistoryChange.InstructionMovement
    {
        let byRun = Dictionary(series.map { ($0.run, $0.value) }, uniquingKeysWith: { first, _ in first })
        let beforeValues = before.compactMap { byRun[$0] }
        let afterValues = after.compactMap { byRun[$0] }
        guard !beforeValues.isEmpty, !afterValues.isEmpty else { return .notMeasured }
        let meanBefore = beforeValues.reduce(0, +) / Double(beforeValues.count)
        let meanAfter = afterValues.reduce(0, +) / Double(afterValues.count)
        guard meanBefore > 0 else { return .notMeasured }
        let shift = (meanAfter - meanBefore) / meanBefore
        return abs(shift) < min(0.01, abs(timeShift) / 2) ? .flat(relativeShift: shift) : .moved(relativeShift: shift)
    }
}
