import Foundation

extension ChangeAnalysis {
    /// One point of a series.
    struct Point {
        var run: Int
        var position: Int
        var value: Double
        /// The value's interval, for the page (nil for counts).
        var lower: Double? = nil
        var upper: Double? = nil
        /// The build ID of the executable that measured it.
        var buildID: String? = nil
    }

    struct SeriesKey: Hashable {
        var machine: String
        var benchmark: String
        var metric: HistoryMetric
    }

    /// The runs the analysis keeps, placed along the history, and their values per series.
    struct Selection {
        var series: [SeriesKey: [Point]] = [:]
        /// Machine key → its fingerprint.
        var machines: [String: MachineFingerprint] = [:]
        /// A benchmark's own regression threshold (percent), where it declares one.
        var thresholds: [SeriesKey: Double] = [:]
        var skipped: [SkipReason: Int] = [:]
    }

    /// Which runs count and where each one sits: `analyse` searches these series and `series(_:order:)`
    /// hands them to the page, so the page draws exactly what was searched.
    func select(_ runs: [HistoryRun], order: CommitOrder?) -> Selection {
        var selection = Selection()
        var positions: [Int: Int] = [:]
        for (index, run) in runs.enumerated() {
            if let machine, run.machine.name != machine && run.machine.label != machine {
                selection.skipped[.otherMachine, default: 0] += 1
            } else if run.dirty {
                selection.skipped[.dirty, default: 0] += 1
            } else if let commit = run.commit {
                if let position = order.map({ $0.position(of: commit) }) ?? run.commitPosition {
                    positions[index] = position
                } else {
                    selection.skipped[.offHistory, default: 0] += 1
                }
            } else {
                selection.skipped[.noCommit, default: 0] += 1
            }
        }
        for (index, run) in runs.enumerated() {
            guard let position = positions[index] else { continue }
            selection.machines[run.machine.key] = run.machine
            for result in run.results where metrics.contains(result.metric) {
                if let filter, (try? filter.firstMatch(in: result.benchmark)) == nil { continue }
                let key = SeriesKey(machine: run.machine.key, benchmark: result.benchmark, metric: result.metric)
                selection.series[key, default: []].append(
                    Point(
                        run: index, position: position, value: result.value, lower: result.lower, upper: result.upper,
                        buildID: result.executableBuildID))
                if let threshold = result.thresholdPercent { selection.thresholds[key] = threshold }
            }
        }
        return selection
    }

    /// A series' points in the analysis' order: along the history, runs of one commit by time.
    static func ordered(_ points: [Point], runs: [HistoryRun]) -> [Point] {
        points.sorted { ($0.position, runs[$0.run].createdAt) < ($1.position, runs[$1.run].createdAt) }
    }

    /// Every series the analysis keeps, with its points along the history (also those with a
    /// single run, which `analyse` does not search), ordered by benchmark, metric and machine.
    public func series(_ runs: [HistoryRun], order: CommitOrder?) -> [HistorySeries] {
        let selection = select(runs, order: order)
        return selection.series.map { key, unordered in
            let machine = selection.machines[key.machine]!
            let points = Self.ordered(unordered, runs: runs).map { point in
                HistorySeries.Point(
                    commit: runs[point.run].commit ?? "", position: point.position, value: point.value,
                    lower: point.lower, upper: point.upper, createdAt: runs[point.run].createdAt)
            }
            return HistorySeries(machine: machine, benchmark: key.benchmark, metric: key.metric, points: points)
        }
        .sorted {
            ($0.benchmark, $0.metric, $0.machine.label, $0.machine.key) < (
                $1.benchmark, $1.metric, $1.machine.label, $1.machine.key
            )
        }
    }
}
