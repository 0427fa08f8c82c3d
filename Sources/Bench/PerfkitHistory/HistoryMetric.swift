import PerfReport

/// The per-benchmark numbers the history keeps, one series each per benchmark and machine.
public enum HistoryMetric: String, Codable, Sendable, CaseIterable, Comparable {
    /// Median wall time per operation (ns), with the median's bootstrap 95% interval.
    case wall
    /// Median process CPU time per operation (ns), with its interval.
    case cpu
    /// Instructions per operation (callgrind or a hardware counter): an exact count, no interval.
    case instructions
    /// Allocations per operation (malloc-interposer): an exact count.
    case allocations

    /// Whether the metric is a time, which layout and the machine move without the code changing.
    public var isTime: Bool { self == .wall || self == .cpu }

    public static func < (lhs: HistoryMetric, rhs: HistoryMetric) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension HistoryMetric {
    /// The report's metric, whose wording (names, units) the history shares.
    public var reportMetric: Metric {
        switch self {
        case .wall: .wallTime
        case .cpu: .cpuTime
        case .instructions: .instructions
        case .allocations: .allocations
        }
    }
}
