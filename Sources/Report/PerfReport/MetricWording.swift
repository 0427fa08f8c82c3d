/// How every output names a metric and shows its values: the terminal, the markdown summary, the
/// HTML page and the comparator's sentences all read these, so a metric is called the same
/// everywhere.
extension Metric {
    /// The metric in prose and table cells: "wall time", "CPU time", "instructions".
    public var displayName: String {
        switch self {
        case .wallTime: "wall time"
        case .cpuTime: "CPU time"
        case .contextSwitches: "context switches"
        case .allocations: "allocations"
        case .instructions: "instructions"
        case .cycles: "cycles"
        }
    }

    /// The unit of one operation's value: "ns/op" for the times, "instructions/op" for the counts.
    public var unitPerOperation: String {
        switch self {
        case .wallTime, .cpuTime: "ns/op"
        case .contextSwitches, .allocations, .instructions, .cycles: "\(displayName)/op"
        }
    }

    /// A value per operation with its unit, short enough for a table cell: "1.23 µs", "1024 allocs".
    public func formatted(_ value: Double) -> String {
        switch self {
        case .wallTime, .cpuTime: UnitFormatting.duration(nanoseconds: value)
        case .allocations: UnitFormatting.count(value) + " allocs"
        case .instructions: UnitFormatting.count(value) + " instr"
        case .cycles: UnitFormatting.count(value) + " cycles"
        case .contextSwitches: UnitFormatting.count(value) + " switches"
        }
    }
}
