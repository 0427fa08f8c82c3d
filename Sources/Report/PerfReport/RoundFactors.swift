/// How fast the machine was in each round of each process of a run, relative to that process as a
/// whole: a neighbour that arrives halfway through a process shows as a jump in its later rounds.
///
/// A round's factor is the median, over the benchmarks measured in it, of a benchmark's median in
/// that round divided by its median over the process's rounds: what the machine does to a round it
/// does to every benchmark in it alike; a code change does it to one benchmark, in every round.
public struct RoundFactors: Codable, Sendable, Equatable {
    /// The rounds of one process.
    public struct Process: Codable, Sendable, Equatable {
        /// The process, as ``Sample/process``; nil for a run in one process.
        public var process: Int?
        /// By round (0-based, as ``Sample/round``); nil where fewer than ``RoundFactors/minimumBenchmarks``
        /// benchmarks were measured in the round, too few to tell the machine from one benchmark.
        public var factors: [Double?]

        public init(process: Int?, factors: [Double?]) {
            self.process = process
            self.factors = factors
        }
    }

    /// A round whose factor lies beyond ±``RoundFactors/boundPercent``.
    public struct Jump: Sendable, Equatable {
        public var process: Int?
        public var round: Int
        public var factor: Double
    }

    /// A round's factor beyond ±this percent is a jump (the bound a process's factor is named at).
    public var boundPercent: Double
    public var minimumBenchmarks: Int
    public var processes: [Process]

    public init(boundPercent: Double, minimumBenchmarks: Int, processes: [Process]) {
        self.boundPercent = boundPercent
        self.minimumBenchmarks = minimumBenchmarks
        self.processes = processes
    }

    /// The rounds whose factor lies beyond the bound, in process and round order.
    public var jumps: [Jump] {
        let limit = 1 + boundPercent / 100
        return processes.flatMap { process in
            process.factors.enumerated().compactMap { round, factor in
                guard let factor, factor > limit || factor < 1 / limit else { return nil }
                return Jump(process: process.process, round: round, factor: factor)
            }
        }
    }

    /// Whether some process had several rounds and not one of them a factor.
    public var isUnknowable: Bool {
        processes.contains { $0.factors.count >= 2 } && processes.allSatisfy { $0.factors.allSatisfy { $0 == nil } }
    }
}
