import ArgumentParser
import Foundation
import Harness
import PerfkitHistory
import PerfReport
import PerfStatistics

/// `perfkit bisect`: the first commit at which a benchmark moved, found by building and measuring
/// about log2(N) of the N commits between a good and a bad revision.
struct BisectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bisect",
        abstract: "Find the first commit at which a benchmark moved between a good and a bad revision.",
        discussion: """
            Walks the first-parent history from --good to --bad. Both ends are built (in one git worktree \
            with its own build folder, each build incremental on the last) and measured; then the commit \
            halfway is, and judged against both ends: at the good level, at the bad level, or at neither. \
            Neither stops the search — the benchmark went back and forth or moved in several steps, and a \
            bisection would name a wrong commit — and says where it stood. Every measured run is filed in the \
            history (--store). Exact counts (--metric instructions, allocations) are judged by their value; \
            times by their medians and the Mann-Whitney U test against the other end, a probe the test \
            cannot place being measured once more. \
            Exit codes: 0 found, 3 not monotonic or not decided, 1 error.
            """
    )

    @Option(help: "A revision at which the benchmark is as it should be.")
    var good: String

    @Option(help: "A later revision at which it moved (a commit, tag or branch; default HEAD).")
    var bad = "HEAD"

    @Option(help: "The benchmark: its id, or a regular expression that selects exactly one benchmark.")
    var filter: String

    @Option(help: "What to follow: wall, cpu, instructions (callgrind) or allocations (malloc-interposer).")
    var metric: HistoryMetric = .wall

    @Flag(help: "Measure each revision with `run --quick` (fewer, shorter samples).")
    var quick = false

    @Option(help: "The product to build at each revision (default: this executable's name).")
    var product: String?

    @Option(help: "Build folder for the revisions (default: a temporary one; reuse one to build faster).")
    var scratchPath: String?

    @Option(help: "Build configuration of the revisions: release, or debug (exact counts only mean much there).")
    var configuration: RevisionBuild.Configuration = .release

    @OptionGroup var store: HistoryStoreOption

    @OptionGroup var filing: HistoryFilingOptions

    func run() throws {
        let selection = try selectedBenchmarks(filter)
        let ids = selection.benchmarks.flatMap { benchmark in
            selection.parameters(of: benchmark).map { benchmark.id(parameter: $0) }
        }
        guard ids.count == 1 else {
            throw PerfkitError(
                .invalidInput, "--filter '\(filter)': selects \(ids.count) benchmarks; bisect follows exactly one")
        }
        let benchmark = ids[0]
        let commits = try Self.commits(from: good, to: bad)
        let history = try store.open(create: true)
        InterruptFlag.install()
        let folder = try WorkFolder(prefix: "perfkit-bisect")
        defer { folder.remove() }
        let work = folder.url
        let workspace = try RevisionBuild.Workspace(
            revision: commits[0], work: work, scratchPath: scratchPath, command: "bisect")
        folder.removing(with: workspace.remove)

        var probe = Probe(
            command: self, workspace: workspace, benchmark: benchmark, work: work, history: history,
            product: product ?? PerfkitProcess.executable.lastPathComponent)
        let wording = "\(benchmark) \(metric.reportMetric.displayName)"
        printError("bisect: \(commits.count - 2) commits between the ends along the first-parent history\n")
        let goodMeasure = try probe.measure(commits[0], checkout: false)
        let badMeasure = try probe.measure(commits[commits.count - 1])
        print(
            "bisect: \(wording): \(describe(goodMeasure)) at good \(HistoryWording.short(commits[0])), "
                + "\(describe(badMeasure)) at bad \(HistoryWording.short(commits[commits.count - 1]))")
        fflush(nil)
        guard try endsDiffer(goodMeasure, badMeasure) else {
            throw PerfkitError(
                .invalidInput,
                "bisect: \(wording) does not differ between \(good) and \(bad) (nothing to bisect)")
        }

        var search = BisectSearch(count: commits.count)
        let judge = BisectJudge()  // a quarter of the way from one end is a level of its own
        while let index = search.next {
            var measured = try probe.measure(commits[index])
            var placed = verdict(of: measured, good: goodMeasure, bad: badMeasure, judge: judge)
            if case .neither = placed, metric.isTime {
                printError("bisect: \(HistoryWording.short(commits[index])) not placed; measuring it once more\n")
                measured = try probe.measure(commits[index], checkout: false, build: false)
                placed = verdict(of: measured, good: goodMeasure, bad: badMeasure, judge: judge)
            }
            print("bisect: \(HistoryWording.short(commits[index])): \(describe(measured)) → \(Self.word(placed))")
            // Each step as it is decided, also into a pipe (`| tee`): a bisection takes minutes.
            fflush(nil)
            search.record(placed, at: index)
        }
        let maximum = BisectSearch.maximumProbes(count: commits.count) + 2
        switch search.outcome {
        case .firstBad(let index)?:
            print(
                "bisect: first commit at the bad level: \(commits[index]) \(Self.subject(commits[index]))"
                    + " (the one before it, \(HistoryWording.short(commits[index - 1])), is at the good level)")
            print("bisect: \(probe.builds) builds (at most ⌈log2 \(commits.count - 1)⌉ + 2 = \(maximum))")
        case .notMonotonic(let index, let fraction)?:
            print(
                "bisect: not monotonic: \(commits[index]) measured at neither level "
                    + String(format: "(%.0f%% of the way from good to bad)", fraction * 100)
                    + "; the benchmark moved back and forth or in several steps: see perfkit history changes")
            throw ExitCode(3)
        case nil:
            break
        }
    }

    /// `good`, every commit after it on the first-parent history up to `bad`, and `bad`.
    static func commits(from good: String, to bad: String) throws -> [String] {
        guard let goodCommit = GitHistory.resolve(good) else {
            throw PerfkitError(.invalidInput, "--good \(good): not a commit of this repository")
        }
        guard let badCommit = GitHistory.resolve(bad) else {
            throw PerfkitError(.invalidInput, "--bad \(bad): not a commit of this repository")
        }
        guard let order = GitHistory.firstParentOrder(from: badCommit), let start = order.position(of: goodCommit)
        else {
            throw PerfkitError(
                .invalidInput, "--good \(good): not on the first-parent history of --bad \(bad) (or not before it)")
        }
        let commits = Array(order.commits[(start - 1)...])
        guard commits.count >= 2 else {
            throw PerfkitError(.invalidInput, "--good and --bad are the same commit")
        }
        return commits
    }

    static func subject(_ commit: String) -> String {
        GitHistory.subject(of: commit).map { "\"\($0)\"" } ?? ""
    }

    static func word(_ verdict: BisectSearch.Verdict) -> String {
        switch verdict {
        case .good: "good"
        case .bad: "bad"
        case .neither(let fraction): String(format: "neither (%.0f%% of the way from good to bad)", fraction * 100)
        }
    }

    /// One revision's measurement of the benchmark.
    struct Measure {
        var value: Double
        /// Per-operation samples (times); empty for counts.
        var samples: [Double]
    }

    func describe(_ measure: Measure) -> String {
        metric.reportMetric.formatted(measure.value)
            + (measure.samples.isEmpty ? "" : " (median of \(measure.samples.count) samples)")
    }

    func endsDiffer(_ good: Measure, _ bad: Measure) throws -> Bool {
        guard good.value != bad.value else { return false }
        if metric.isTime { return MannWhitneyU.test(good.samples, bad.samples).pValue < 0.01 }
        return true
    }

    func verdict(of measure: Measure, good: Measure, bad: Measure, judge: BisectJudge) -> BisectSearch.Verdict {
        metric.isTime
            ? judge.verdict(samples: measure.samples, good: good.samples, bad: bad.samples)
            : judge.verdict(value: measure.value, good: good.value, bad: bad.value)
    }

    /// Checks out, builds and measures revisions in the workspace, filing each run in the history.
    struct Probe {
        var command: BisectCommand
        var workspace: RevisionBuild.Workspace
        var benchmark: String
        var work: URL
        var history: any ResultsStore
        var product: String
        private(set) var builds = 0
        private var measured = 0

        init(
            command: BisectCommand, workspace: RevisionBuild.Workspace, benchmark: String, work: URL,
            history: any ResultsStore, product: String
        ) {
            self.command = command
            self.workspace = workspace
            self.benchmark = benchmark
            self.work = work
            self.history = history
            self.product = product
        }

        mutating func measure(_ commit: String, checkout: Bool = true, build: Bool = true) throws -> Measure {
            if checkout { try workspace.checkout(commit) }
            let short = HistoryWording.short(commit)
            let executable = workspace.scratch.appendingPathComponent("\(command.configuration.rawValue)/\(product)")
            if build {
                _ = try workspace.build(product, configuration: command.configuration, revision: short)
                builds += 1
            }
            measured += 1
            let output = work.appendingPathComponent("run-\(measured)")
            var arguments = [
                "run", "--filter", InterleavedComparison.filter(matchingExactly: [benchmark]), "--output", output.path,
                "--format", "json",
            ]
            if command.quick { arguments.append("--quick") }
            if command.configuration == .debug { arguments.append("--allow-debug-build") }
            switch command.metric {
            case .instructions: arguments.append("--instructions")
            case .allocations: arguments.append("--allocations")
            case .wall, .cpu: break
            }
            printError("bisect: measuring \(benchmark) at \(short)\n")
            // In the checkout: the report records the commit measured (git in the current directory).
            let status = try PerfkitProcess.run(
                arguments, executable: executable, currentDirectory: workspace.package, quiet: true)
            guard status == 0 else {
                throw PerfkitError(.runFailed, "\(short): `run` failed with exit status \(status)")
            }
            let report = try PerfkitProcess.onlyReport(in: output)
            guard let result = report.benchmarks.first(where: { $0.id == benchmark }) else {
                throw PerfkitError(.invalidInput, "\(short): has no benchmark \(benchmark)")
            }
            let reportPath = output.appendingPathComponent("report.json").path
            try command.filing.filing.add([(path: reportPath, report: report)], to: history, quiet: true)
            return try Self.measure(of: result, metric: command.metric, at: short)
        }

        static func measure(of result: BenchmarkResult, metric: HistoryMetric, at commit: String) throws -> Measure {
            switch metric {
            case .wall: return Measure(value: result.wallTime.median, samples: result.wallNanosecondsPerOperation)
            case .cpu:
                guard let cpu = result.cpuTime else { break }
                let samples = result.samples.compactMap { sample in
                    sample.cpuNanoseconds.map { $0 / Double(max(sample.iterations, 1)) }
                }
                return Measure(value: cpu.median, samples: samples)
            case .instructions:
                guard let count = result.instructionsPerOperation else { break }
                return Measure(value: count, samples: [])
            case .allocations:
                guard let count = result.allocationsPerOperation else { break }
                return Measure(value: count, samples: [])
            }
            throw PerfkitError(
                .runFailed, "\(commit): the run did not measure \(metric.reportMetric.displayName) of \(result.id)")
        }
    }
}
