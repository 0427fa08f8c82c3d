/// One level shift found in one series: plain data for the wording, the JSON and the HTML page.
public struct HistoryChange: Codable, Sendable, Equatable {
    public var benchmark: String
    public var metric: HistoryMetric
    /// The machine's label (its `--machine` name or its host and CPU).
    public var machine: String
    /// The first commit measured at the new level.
    public var commit: String
    public var commitPosition: Int?
    /// The last commit measured before it. When commits lie between the two that were not measured,
    /// the change started somewhere after `previousCommit` and at or before `commit`.
    public var previousCommit: String
    /// Commits between `previousCommit` and `commit` that no run measured (0: `commit` is the one).
    public var unmeasuredCommits: Int?
    public var before: Level
    public var after: Level
    /// (after − before) / before.
    public var relativeShift: Double
    /// The p-value between the two levels (the larger of Student's and Welch's t-test).
    public var pValue: Double
    /// True when the value grew: slower, or more instructions or allocations.
    public var isRegression: Bool
    /// For a time: whether the instruction count moved with it (nil for counts themselves).
    public var instructions: InstructionMovement?
    /// Whether the benchmark's executable changed where the level did (nil when a run on either
    /// side has no build ID).
    public var executable: ExecutableChange?

    /// A shift between runs of one executable: the same machine code measured slower or faster,
    /// so the machine (its load, its host, its frequency) moved, not a commit. Listed apart, never
    /// a regression for `history changes --since`.
    public var isMachineShift: Bool { executable == .same }

    /// Whether the runs on both sides of a change ran the same executable.
    public enum ExecutableChange: String, Codable, Sendable, Equatable {
        /// Every run of the last commit before and of the first commit after had one build ID.
        case same
        /// The build IDs differ: the commit (or its build) changed the machine code.
        case changed
    }

    /// A level: the mean of its runs' values and the mean's 95% interval.
    public struct Level: Codable, Sendable, Equatable {
        public var mean: Double
        public var lower: Double
        public var upper: Double
        /// How many runs measured it.
        public var runs: Int
        public var firstCommit: String
        public var lastCommit: String
    }

    /// What the instruction count did where a time shifted.
    public enum InstructionMovement: Codable, Sendable, Equatable {
        /// It shifted with the time (the relative shift of its mean over the same runs).
        case moved(relativeShift: Double)
        /// It stayed within 1% (and within half the time's shift): the code runs the same
        /// instructions, so the time moved with the layout, the machine or the toolchain.
        case flat(relativeShift: Double)
        /// Not counted in the runs on one side or both.
        case notMeasured
    }
}
