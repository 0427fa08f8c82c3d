/// How much a benchmark's median moved from one process to the next, when it was measured in
/// several (`run --processes N`).
///
/// Samples of one process share what is fixed at its start: Swift's per-process hash seed (a hash
/// table's layout, and so its speed), where the heap and stack landed, and the machine's state of
/// that moment. Their spread says nothing about the spread between processes, and a baseline and a
/// candidate are always two processes, so a gate needs this one.
public struct ProcessSpread: Codable, Sendable, Equatable {
    /// Median wall time per operation of each process, in ns, in process order.
    public var wallMedians: [Double]
    /// Median CPU time per operation of each process, in ns, when every sample has it.
    public var cpuMedians: [Double]?
    /// (largest / smallest wall median − 1) × 100.
    public var spreadPercent: Double
    /// What most likely moved it, when the spread is large: the machine (every benchmark of the
    /// run moved with it) or this benchmark (a hash seed or a memory layout of its own).
    public var likelyCause: String?
    /// The machine's common factor in each process, in process order: the median, over the other
    /// benchmarks measured in that process, of their wall median there divided by their median over
    /// the processes (leave-one-out, so this benchmark's own swing is not in it). Nil when fewer than
    /// three other benchmarks shared a process, and in reports of older perfkits.
    public var commonFactors: [Double]?
    /// The spread of the wall medians divided by ``commonFactors``, as ``spreadPercent``: what is left
    /// of the spread once the machine's movement is taken out (each sample first divided by its
    /// round's factor, where known: ``RoundFactors``).
    public var relativeSpreadPercent: Double?
    /// The spread, as ``relativeSpreadPercent`` where known, of the baseline's processes that hashed
    /// with Swift's one fixed seed (``Report/fixedHashSeedProcesses``), and how many there were: far
    /// below the spread with a seed per process, the seed is what moves this benchmark.
    public var fixedHashSeedSpreadPercent: Double?
    public var fixedHashSeedProcesses: Int?

    public init(
        wallMedians: [Double], cpuMedians: [Double]?, spreadPercent: Double, likelyCause: String? = nil,
        commonFactors: [Double]? = nil, relativeSpreadPercent: Double? = nil
    ) {
        self.wallMedians = wallMedians
        self.cpuMedians = cpuMedians
        self.spreadPercent = spreadPercent
        self.likelyCause = likelyCause
        self.commonFactors = commonFactors
        self.relativeSpreadPercent = relativeSpreadPercent
    }

    public var processes: Int { wallMedians.count }
}
