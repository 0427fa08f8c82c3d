/// Startup phases of one program, measured over several launches (`perfkit startup`).
public struct StartupResult: Codable, Sendable, Equatable {
    public var command: [String]
    /// "cold" (binary and libraries evicted from the page cache before each launch) or "warm".
    public var mode: String
    public var underPressure: Bool
    public var runs: Int
    /// Phases in the order the program marked them; times are from time zero, in ns.
    public var phases: [StartupPhase]
    public var total: Statistics
    /// How time zero was established: "launcher", "proc-stat" (10 ms resolution), …
    public var timeZeroSource: String
    public var majorPageFaultsPerLaunch: [Int]

    public init(
        command: [String], mode: String, underPressure: Bool, runs: Int, phases: [StartupPhase], total: Statistics,
        timeZeroSource: String, majorPageFaultsPerLaunch: [Int]
    ) {
        self.command = command
        self.mode = mode
        self.underPressure = underPressure
        self.runs = runs
        self.phases = phases
        self.total = total
        self.timeZeroSource = timeZeroSource
        self.majorPageFaultsPerLaunch = majorPageFaultsPerLaunch
    }
}

public struct StartupPhase: Codable, Sendable, Equatable {
    public var name: String
    /// Time from time zero to the mark, per launch, in ns.
    public var nanosecondsSinceStart: [Double]
    public var statistics: Statistics

    public init(name: String, nanosecondsSinceStart: [Double], statistics: Statistics) {
        self.name = name
        self.nanosecondsSinceStart = nanosecondsSinceStart
        self.statistics = statistics
    }
}
