import Foundation

/// One series as the analysis searched it (machine × benchmark × metric, its runs along the
/// first-parent history): plain data for the page that draws it.
public struct HistorySeries: Sendable, Equatable {
    public var machine: MachineFingerprint
    public var benchmark: String
    public var metric: HistoryMetric
    /// In the analysis' order: by commit position, then by when the run was measured.
    public var points: [Point]

    public init(machine: MachineFingerprint, benchmark: String, metric: HistoryMetric, points: [Point]) {
        self.machine = machine
        self.benchmark = benchmark
        self.metric = metric
        self.points = points
    }

    /// One run's value.
    public struct Point: Sendable, Equatable {
        public var commit: String
        /// The commit's place along the history the analysis followed.
        public var position: Int
        public var value: Double
        /// The value's 95% interval; nil for exact counts.
        public var lower: Double?
        public var upper: Double?
        public var createdAt: Date

        public init(
            commit: String, position: Int, value: Double, lower: Double? = nil, upper: Double? = nil, createdAt: Date
        ) {
            self.commit = commit
            self.position = position
            self.value = value
            self.lower = lower
            self.upper = upper
            self.createdAt = createdAt
        }
    }

    /// Whether `change` was found in this series. A change names its machine by label, which two
    /// fingerprints can share (a kernel update keeps host and CPU): its levels must then lie in
    /// this series' points too, run for run.
    public func contains(_ change: HistoryChange) -> Bool {
        guard change.benchmark == benchmark, change.metric == metric, change.machine == machine.label,
            let first = firstIndex(of: change)
        else { return false }
        let start = first - change.before.runs
        let end = first + change.after.runs
        return start >= 0 && end <= points.count && points[start].commit == change.before.firstCommit
            && points[first - 1].commit == change.before.lastCommit
            && points[end - 1].commit == change.after.lastCommit
    }

    /// The index of the change's first run at the new level.
    public func firstIndex(of change: HistoryChange) -> Int? {
        points.firstIndex { $0.commit == change.commit && $0.position == change.commitPosition }
    }
}
