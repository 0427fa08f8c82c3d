/// Where one operation of a benchmark spends its instructions, function by function: exact counts
/// from callgrind, per operation like `instructionsPerOperation`, bounded to the functions that
/// matter (the top by exclusive and by inclusive instructions) so a report stays small. A time
/// profile has the same shape in ns of sampled CPU time per operation, with its ``samples``.
public struct FunctionProfile: Codable, Sendable, Equatable {
    /// One function (demangled where Swift's demangler knows the name) and its instructions per
    /// operation: in its own code (exclusive) and with everything it called (inclusive).
    public struct Function: Codable, Sendable, Equatable {
        public var name: String
        /// The symbol as the binary has it (mangled), when `name` differs from it: what the
        /// compiled-code comparison looks the function up by.
        public var symbol: String?
        public var exclusive: Double
        public var inclusive: Double

        public init(name: String, symbol: String? = nil, exclusive: Double, inclusive: Double) {
            self.name = name
            self.symbol = symbol
            self.exclusive = exclusive
            self.inclusive = inclusive
        }
    }

    /// A call from one kept function to another (indexes into `functions`), with the callee's
    /// instructions per operation spent in those calls (inclusive).
    public struct Edge: Codable, Sendable, Equatable {
        public var caller: Int
        public var callee: Int
        public var inclusive: Double

        public init(caller: Int, callee: Int, inclusive: Double) {
            self.caller = caller
            self.callee = callee
            self.inclusive = inclusive
        }
    }

    /// Largest inclusive first.
    public var functions: [Function]
    public var edges: [Edge]
    /// Exclusive instructions per operation of the functions left out: the kept ones and these add
    /// up to the whole region's count.
    public var omittedExclusive: Double
    /// The timer samples a time profile stands for (what its intervals are computed from); nil for
    /// an instruction profile, whose counts are exact.
    public var samples: Int?

    public init(functions: [Function], edges: [Edge], omittedExclusive: Double, samples: Int? = nil) {
        self.functions = functions
        self.edges = edges
        self.omittedExclusive = omittedExclusive
        self.samples = samples
    }

    /// Everything the profile holds per operation: the kept functions' own and the rest's.
    public var total: Double { functions.reduce(omittedExclusive) { $0 + $1.exclusive } }

    /// The kept function of that name.
    public func function(named name: String) -> Function? { functions.first { $0.name == name } }

    /// Each function's exclusive instructions as stacks one caller deep, `[caller, function]`
    /// (outermost first), split among its callers in proportion to the edges' inclusive counts;
    /// `[function]` when no kept function calls it. Only edges are known, not whole stacks: what
    /// the pprof pair and the report's differential flame graph draw.
    public func callerStacks() -> [(frames: [String], value: Double)] {
        var stacks: [(frames: [String], value: Double)] = []
        for (index, function) in functions.enumerated() where function.exclusive > 0 {
            let callers = edges.filter {
                $0.callee == index && $0.caller != index && functions.indices.contains($0.caller)
            }
            let spent = callers.reduce(0.0) { $0 + $1.inclusive }
            guard spent > 0 else {
                stacks.append(([function.name], function.exclusive))
                continue
            }
            for call in callers {
                stacks.append(
                    ([functions[call.caller].name, function.name], function.exclusive * call.inclusive / spent))
            }
        }
        return stacks
    }
}

/// Which functions grew most between two profiles of a regressed benchmark: plain data the gate
/// computes and the outputs word (``ComparisonWording/functionChange(_:)``).
public struct FunctionDifferential: Codable, Sendable, Equatable {
    /// One function's instructions per operation on both sides; a side is nil when the function is
    /// not among that profile's kept functions (absent, or too small to keep).
    public struct Change: Codable, Sendable, Equatable {
        public var name: String
        /// The function's symbol in the binaries (``FunctionProfile/Function/symbol``).
        public var symbol: String?
        /// What changed in its machine code between the two binaries, a line each (worded by
        /// PerfMachineCode's `CompiledCodeComparison`); nil when the binaries were not compared.
        public var compiledCode: [String]?
        public var baseExclusive: Double?
        public var currentExclusive: Double?
        public var baseInclusive: Double?
        public var currentInclusive: Double?
        /// A sampled differential's interval of the exclusive growth per operation (95% for the list,
        /// from the two sides' sample counts); nil for exact instruction counts.
        public var growthLow: Double?
        public var growthHigh: Double?

        public init(
            name: String, symbol: String? = nil, baseExclusive: Double?, currentExclusive: Double?,
            baseInclusive: Double?, currentInclusive: Double?
        ) {
            self.name = name
            self.symbol = symbol
            self.baseExclusive = baseExclusive
            self.currentExclusive = currentExclusive
            self.baseInclusive = baseInclusive
            self.currentInclusive = currentInclusive
        }

        /// New minus base exclusive instructions per operation (a missing side counts as 0).
        public var exclusiveGrowth: Double { (currentExclusive ?? 0) - (baseExclusive ?? 0) }
        public var inclusiveGrowth: Double? {
            guard let currentInclusive else { return nil }
            return currentInclusive - (baseInclusive ?? 0)
        }
    }

    /// The functions that grew most by exclusive instructions, largest growth first (at most five);
    /// empty when no function grew measurably (a flat profile).
    public var grown: [Change]
    /// Instructions per operation of the whole profile, base and new.
    public var baseTotal: Double
    public var currentTotal: Double
    /// About the compiled code as a whole, a line each: why it was not compared (no baseline
    /// binary, an unreadable one), or, with nothing grown, that the top functions' code is the same.
    public var compiledCodeNotes: [String]?
    /// The timer samples behind each side of a sampled-time differential (ns of CPU time per
    /// operation); nil for an instruction one.
    public var baseSamples: Int?
    public var currentSamples: Int?

    public init(grown: [Change], baseTotal: Double, currentTotal: Double, compiledCodeNotes: [String]? = nil) {
        self.grown = grown
        self.baseTotal = baseTotal
        self.currentTotal = currentTotal
        self.compiledCodeNotes = compiledCodeNotes
    }

    /// Whether it compares sampled CPU time (ns per operation) rather than exact instructions.
    public var isSampled: Bool { baseSamples != nil }
}
