import CHarness
import Foundation
import PerfReport

/// Deterministic instruction counts from callgrind, for machines whose kernel offers no hardware
/// counters (`perfkit run --instructions` re-executes perfkit under
/// `valgrind --tool=callgrind --collect-atstart=no`).
///
/// Collection is switched on only around the measured region; after each region callgrind dumps
/// its counts to the next numbered part of the output file (`<out>.1`, `<out>.2`, …), which this
/// counter reads back and deletes. Time under valgrind means nothing, so the runner sizes samples
/// by instructions instead (see `BenchmarkRunner.measureCountingInstructions`).
///
/// Used from the runner's thread only.
public final class CallgrindInstructionCounter: RegionCounter {
    /// Set by the launcher to the `--callgrind-out-file` it gave valgrind.
    public static let outputFileEnvironmentKey = "PERFKIT_CALLGRIND_OUT"
    /// The report's `instructionsSource` for these counts.
    public static let source = "callgrind"

    /// Samples per benchmark: the counts are deterministic, so a few show any residual spread.
    public static let samples = 3
    /// An operation dearer than this many instructions is measured once after the warm-up: under
    /// valgrind it takes seconds (a PNG encode of 4096² pixels costs ~10^10), and its count is as
    /// deterministic as the small ones'.
    public static let largeOperationInstructions = 8 * targetInstructionsPerSample
    /// Instructions one sample aims for (iterations are a power of two, so a small change in the
    /// body does not change the iteration count).
    public static let targetInstructionsPerSample = 2_000_000.0
    public static let maximumIterations = 1 << 24

    let outputFile: String
    private var dumps = 0
    private var names = CallgrindCallGraph.NameTable()
    /// The functions and calls of the last region dumped (nil when its dump could not be read).
    private(set) var lastCallGraph: CallgrindCallGraph?
    /// Instructions of an empty measured region (the bracket itself), subtracted from every sample.
    private(set) var bracketOverhead = 0.0

    init(outputFile: String) {
        self.outputFile = outputFile
    }

    /// True when this process runs under valgrind (any tool).
    public static var runningOnValgrind: Bool { charness_running_on_valgrind() != 0 }

    /// The counter when this process runs under callgrind started by perfkit, else nil.
    public static func fromEnvironment() -> CallgrindInstructionCounter? {
        guard runningOnValgrind,
            let path = ProcessInfo.processInfo.environment[outputFileEnvironmentKey], !path.isEmpty
        else { return nil }
        let counter = CallgrindInstructionCounter(outputFile: path)
        // Measure the bracket (clock reads, the toggles) with nothing in it, twice, keeping the
        // second: the first pays for lazy binding of the C helpers.
        for _ in 0..<2 {
            counter.start()
            _ = MonotonicClock.now()
            _ = MonotonicClock.now()
            counter.pause()
            counter.bracketOverhead = counter.dump(label: "perfkit-bracket-overhead").map { max(0, $0) } ?? 0
        }
        return counter
    }

    /// Zeroes the counts and switches collection on.
    func start() { charness_callgrind_start() }

    /// Switches collection off.
    func pause() { charness_callgrind_stop() }

    /// Dumps the counts since `start()` and returns its instructions minus the bracket's own, or
    /// nil when the dump could not be read. Reading the dump allocates, so an allocation counter
    /// must be stopped before this.
    func dump(label: String) -> Double? {
        charness_callgrind_dump(label)
        dumps += 1
        let path = "\(outputFile).\(dumps)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        lastCallGraph = nil
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let dump = try? CallgrindDump(parsing: text)
        else { return nil }
        // Read whenever the total is: the names compressed in this part may be needed by later ones.
        lastCallGraph = try? CallgrindCallGraph(parsing: text, names: &names)
        return max(0, dump.instructions - bracketOverhead)
    }

    func read(label: String) -> (instructions: Double?, cycles: Double?) { (dump(label: label), nil) }
}

/// One part of callgrind's output: which event counts it holds and their totals.
public struct CallgrindDump: Sendable, Equatable {
    /// Why a callgrind dump could not be read: a kind to switch on and the one-line problem.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A line the format requires is absent (`events:`, `totals:`/`summary:`).
            case missingLine
            /// The totals do not match the events, or one is not a number.
            case badTotals
        }

        public var kind: Kind
        public var description: String
    }

    /// The label given with the dump request ("Client Request: <label>"), if any.
    public var trigger: String?
    /// Total of every event, by name (`Ir`, and `Bc`, `Dr`, … when simulated).
    public var totals: [String: Double]

    /// Instructions executed (`Ir`).
    public var instructions: Double { totals["Ir"] ?? 0 }

    /// Reads the `events:` header and the `totals:` line (or `summary:` when there is no totals
    /// line) of one part of a callgrind output file.
    public init(parsing text: String) throws {
        var events: [String]?
        var totalsLine: [Substring]?
        var summaryLine: [Substring]?
        var trigger: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("events:") {
                events = line.dropFirst("events:".count).split(separator: " ").map(String.init)
            } else if line.hasPrefix("totals:") {
                totalsLine = line.dropFirst("totals:".count).split(separator: " ")
            } else if line.hasPrefix("summary:") {
                summaryLine = line.dropFirst("summary:".count).split(separator: " ")
            } else if line.hasPrefix("desc: Trigger: ") {
                let value = line.dropFirst("desc: Trigger: ".count)
                let prefix = "Client Request: "
                trigger = value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : String(value)
            }
        }
        guard let events, !events.isEmpty else {
            throw ParseError(kind: .missingLine, description: "no 'events:' line")
        }
        guard let values = totalsLine ?? summaryLine else {
            throw ParseError(kind: .missingLine, description: "no 'totals:' or 'summary:' line")
        }
        guard values.count <= events.count else {
            throw ParseError(kind: .badTotals, description: "\(values.count) totals for \(events.count) events")
        }
        var totals: [String: Double] = [:]
        for (index, value) in values.enumerated() {
            guard let number = Double(value) else {
                throw ParseError(kind: .badTotals, description: "total '\(value)' of \(events[index]) is not a number")
            }
            totals[events[index]] = number
        }
        // Callgrind leaves trailing zero totals out.
        for event in events where totals[event] == nil { totals[event] = 0 }
        self.trigger = trigger
        self.totals = totals
    }
}

extension BenchmarkRunner {
    /// Measures one case under callgrind: one warm-up run of a single iteration, which also sizes
    /// the samples, then `CallgrindInstructionCounter.samples` samples of a power-of-two iteration
    /// count near `targetInstructionsPerSample` (a single one-iteration sample for an operation
    /// beyond `largeOperationInstructions`). Nothing depends on time, so the same binary gives the
    /// same counts on every run.
    func measureCountingInstructions(
        _ instance: any BenchmarkInstance, id: String, callgrind: CallgrindInstructionCounter,
        shouldStop: () -> Bool
    ) -> (samples: [Sample], profile: FunctionProfile?)? {
        let warmUp = sample(instance, iterations: 1, label: "\(id)#warm-up", regionCounter: callgrind)
        let perOperation = warmUp.instructions ?? 0
        let iterations = Self.instructionSampleIterations(perOperation: perOperation)
        let count =
            perOperation > CallgrindInstructionCounter.largeOperationInstructions
            ? 1 : CallgrindInstructionCounter.samples
        var samples: [Sample] = []
        // The measured samples' functions, as their total is: the warm-up's are left out.
        var graph: CallgrindCallGraph? = CallgrindCallGraph()
        for index in 0..<count {
            if shouldStop() { return nil }
            let sample = sample(
                instance, iterations: iterations, label: "\(id)#\(index)", regionCounter: callgrind)
            samples.append(sample)
            if let part = callgrind.lastCallGraph { graph?.add(part) } else { graph = nil }
            // The warm-up misjudged the size (work on other threads, a cache it filled): one
            // oversized sample is enough, more would take minutes under valgrind.
            if (sample.instructions ?? 0) > CallgrindInstructionCounter.largeOperationInstructions { break }
        }
        let profile = graph?.profile(iterations: samples.reduce(0) { $0 + $1.iterations })
        return (samples, profile)
    }

    /// The largest power of two whose run stays near the target, at least 1.
    static func instructionSampleIterations(perOperation instructions: Double) -> Int {
        let wanted = CallgrindInstructionCounter.targetInstructionsPerSample / max(instructions, 1)
        var iterations = 1
        while iterations < CallgrindInstructionCounter.maximumIterations && Double(iterations * 2) <= wanted {
            iterations *= 2
        }
        return iterations
    }
}
