import Foundation
import PerfReport
import ProbeRecords

/// Reports built from the PerfReport initialisers, with numbers computed from deterministic
/// samples so that what the page shows can be checked against the model.
enum SyntheticReports {
    static let hostile = "<script>alert(1)</script> \"q\" 'a' & Array<Int>"

    /// A report with several suites and groups, a parameterised benchmark, a claim with a compiled
    /// form, a warning, a comparison with a regression and an improvement, stalls with call trees,
    /// and cold/warm startup. `decorate` is applied to every string a producer could control.
    static func current(decorate: (String) -> String = { $0 }) -> Report {
        report(decorate: decorate, slowdown: 1.0, withExtras: true)
    }

    /// The same benchmarks measured "before": the witness call was faster, the lookup slower.
    static func baseline(decorate: (String) -> String = { $0 }) -> Report {
        report(decorate: decorate, slowdown: 0.0, withExtras: false)
    }

    /// 1,000 benchmark cases in 20 groups of one suite.
    static func large() -> Report {
        var large = baseline()
        let template = large.benchmarks[0]
        large.benchmarks = (0..<1000).map { index in
            var result = template
            result.group = "group\(index / 50)"
            result.name = "case\(index)"
            result.parameter = nil
            result.id = "Big/\(result.group)/\(result.name)"
            result.suite = "Big"
            return result
        }
        return large
    }

    /// Everything that could go wrong numerically: no samples, NaN and infinite statistics, zero
    /// and negative times, a stall without stacks, startup without phases, entries without ratios.
    static func degenerate() -> Report {
        var report = baseline()
        let nan = Double.nan
        let broken = Statistics(
            count: 0, min: nan, max: .infinity, mean: nan, median: nan, standardDeviation: nan,
            coefficientOfVariation: nan, medianAbsoluteDeviation: nan, p90: nan, p99: nan,
            medianConfidenceInterval: ConfidenceInterval(lower: nan, upper: nan, level: 0.95), outliers: OutlierCounts()
        )
        let zero = statistics([0, 0, 0])
        report.benchmarks = [
            BenchmarkResult(
                id: "Odd/empty/none", suite: "Odd", group: "empty", name: "none", samples: [], wallTime: broken),
            BenchmarkResult(
                id: "Odd/empty/zero", suite: "Odd", group: "empty", name: "zero", throughput: .bytes(0),
                samples: [Sample(iterations: 0, wallNanoseconds: 0), Sample(iterations: 5, wallNanoseconds: -10)],
                wallTime: zero),
            BenchmarkResult(
                id: "Odd/scaling/p", suite: "Odd", group: "scaling", name: "p", parameter: 0,
                samples: [Sample(iterations: 1, wallNanoseconds: 5)], wallTime: statistics([5])),
            BenchmarkResult(
                id: "Odd/scaling/p[8]", suite: "Odd", group: "scaling", name: "p", parameter: 8,
                samples: [Sample(iterations: 1, wallNanoseconds: 50)], wallTime: statistics([50])),
        ]
        var none = ComparisonEntry(
            id: "Odd/empty/none", metric: .wallTime, thresholdPercent: 5, verdict: .removed, explanation: "")
        none.baselineMedian = nan
        none.ratio = nan
        none.ratioConfidenceInterval = ConfidenceInterval(lower: nan, upper: .infinity, level: 0.95)
        none.pValue = nan
        var fromZero = ComparisonEntry(
            id: "Odd/empty/zero", metric: .allocations, thresholdPercent: 0, verdict: .regressed, explanation: "zero")
        (fromZero.baselineMedian, fromZero.currentMedian, fromZero.ratio) = (0, 0, 0)
        (fromZero.pValue, fromZero.adjustedPValue) = (1, 1)
        report.comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm", entries: [none, fromZero])
        report.stalls = [
            StallRecord(
                watchdog: "w", threadID: 1, start: report.createdAt, durationNanoseconds: 0, ongoing: true,
                thresholdNanoseconds: 0, threadCPUNanoseconds: nil, classification: .unknown, threadStates: [],
                sampleCount: 0, unansweredSamples: 3, callTree: CallTreeNode(frame: nil, count: 0, children: []),
                topStack: [], groupKey: "")
        ]
        report.startup = [
            StartupResult(
                command: [], mode: "other", underPressure: true, runs: 0, phases: [], total: broken,
                timeZeroSource: "proc-stat", majorPageFaultsPerLaunch: [])
        ]
        return report
    }

    struct Spec {
        var suite: String
        var group: String
        var name: String
        var parameter: Int?
        var nanoseconds: Double
        var throughput: Throughput?
        var allocations: Double?
        var claim: Claim?
        var compiledForm: CompiledForm?
        var warnings: [Warning] = []
        var outliers = false
    }

    static func specs(_ d: (String) -> String) -> [Spec] {
        var specs: [Spec] = []
        for name in ["Array<Int>.append", "ContiguousArray<Int>.append"] {
            for n in [16, 256, 4096, 65536] {
                specs.append(
                    Spec(
                        suite: d("Collections"), group: d("append"), name: d(name), parameter: n,
                        nanoseconds: Double(n) * (name.hasPrefix("Array") ? 1.1 : 0.9) + 40,
                        throughput: .items(n), allocations: n > 256 ? 2 : 1))
            }
        }
        specs.append(
            Spec(
                suite: d("Collections"), group: d("lookup"), name: d("Dictionary<String, Int>"), nanoseconds: 38,
                throughput: .bytes(64)))
        specs.append(
            Spec(
                suite: d("Collections"), group: d("lookup"), name: d("Set<Int>"), nanoseconds: 21,
                throughput: .bytes(8)))
        let forms: [(String, Double, CompiledForm.Kind)] = [
            ("direct", 1.2, .inlined), ("protocol witness", 3.4, .witnessTable), ("class vtable", 2.6, .vtable),
        ]
        for (name, ns, kind) in forms {
            specs.append(
                Spec(
                    suite: d("Dispatch"), group: d("calls"), name: d(name), nanoseconds: ns,
                    claim: Claim(
                        statement: d("\(name) costs less than 5 ns"), verdict: ns < 3 ? .held : .didNotHold,
                        evidence: d("median \(ns) ns vs 5 ns")),
                    compiledForm: CompiledForm(
                        kind: kind, symbol: d("$s5Bench4callyySiF"), evidence: [d("call *0x18(%rax)"), d("ret")]),
                    warnings: name == "class vtable"
                        ? [Warning(rule: d("cv-above-5-percent"), message: d("CV 7.2 % is above 5 %"))] : []))
        }
        specs.append(
            Spec(
                suite: d("IO"), group: d("decode"), name: d("json"), nanoseconds: 2_500_000,
                throughput: .bytes(1 << 20), allocations: 1200, outliers: true))
        return specs
    }

    /// Deterministic pseudo-random numbers in [0, 1).
    struct Noise {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    static func result(_ spec: Spec, factor: Double, seed: UInt64) -> BenchmarkResult {
        var noise = Noise(state: seed)
        let iterations = 1000
        var samples: [Sample] = []
        for index in 0..<30 {
            var perOp = spec.nanoseconds * factor * (1 + 0.04 * (noise.next() - 0.5))
            if spec.outliers, index == 7 { perOp *= 1.6 }
            if spec.outliers, index == 19 { perOp *= 3.5 }
            samples.append(
                Sample(
                    iterations: iterations, wallNanoseconds: perOp * Double(iterations),
                    allocations: spec.allocations.map { Int($0) * iterations }))
        }
        let id =
            "\(spec.suite)/\(spec.group)/\(spec.name)" + (spec.parameter.map { "[\($0)]" } ?? "")
        return BenchmarkResult(
            id: id, suite: spec.suite, group: spec.group, name: spec.name, parameter: spec.parameter,
            throughput: spec.throughput, samples: samples,
            wallTime: statistics(samples.map(\.wallNanosecondsPerOperation)),
            allocationsPerOperation: spec.allocations,
            allocatedBytesPerOperation: spec.allocations.map { $0 * 48 }, warnings: spec.warnings,
            counters: spec.claim == nil ? [:] : ["observer firings": 3], claim: spec.claim,
            compiledForm: spec.compiledForm)
    }

    /// Simple statistics (the real ones come from Harness); the CI is median ± 2 MAD / √n.
    static func statistics(_ values: [Double]) -> Statistics {
        let sorted = values.sorted()
        guard sorted.count > 1 else {
            let value = sorted.first ?? 0
            return Statistics(
                count: sorted.count, min: value, max: value, mean: value, median: value, standardDeviation: 0,
                coefficientOfVariation: 0, medianAbsoluteDeviation: 0, p90: value, p99: value,
                medianConfidenceInterval: ConfidenceInterval(lower: value, upper: value, level: 0.95),
                outliers: OutlierCounts())
        }
        let n = Double(sorted.count)
        func quantile(_ q: Double) -> Double {
            let position = q * (n - 1)
            let lower = Int(position)
            let upper = min(lower + 1, sorted.count - 1)
            return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
        }
        let mean = sorted.reduce(0, +) / n
        let sd = (sorted.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
        let median = quantile(0.5)
        let mad = sorted.map { abs($0 - median) }.sorted()[sorted.count / 2]
        let q1 = quantile(0.25)
        let q3 = quantile(0.75)
        let iqr = q3 - q1
        var outliers = OutlierCounts()
        for value in sorted {
            if value > q3 + 3 * iqr {
                outliers.highSevere += 1
            } else if value > q3 + 1.5 * iqr {
                outliers.highMild += 1
            } else if value < q1 - 3 * iqr {
                outliers.lowSevere += 1
            } else if value < q1 - 1.5 * iqr {
                outliers.lowMild += 1
            }
        }
        let half = 2 * mad / n.squareRoot()
        return Statistics(
            count: sorted.count, min: sorted.first!, max: sorted.last!, mean: mean, median: median,
            standardDeviation: sd, coefficientOfVariation: sd / mean, medianAbsoluteDeviation: mad,
            p90: quantile(0.9), p99: quantile(0.99),
            medianConfidenceInterval: ConfidenceInterval(lower: median - half, upper: median + half, level: 0.95),
            outliers: outliers)
    }

    static func environment(_ d: (String) -> String, build: String) -> Environment {
        Environment(
            host: d("ci-runner-7"), os: d("Debian GNU/Linux 12 (bookworm)"), kernel: d("6.1.0-18-amd64"),
            cpuModel: d("AMD EPYC 7763 64-Core Processor"), coreCount: 2, memoryBytes: 8 << 30,
            swiftVersion: d("Swift version 6.3.1"), buildConfiguration: build, gitCommit: d("3c98db0"),
            loadAverage: [0.42, 0.5, 0.61], cpuGovernor: nil)
    }

    static func report(decorate d: (String) -> String, slowdown: Double, withExtras: Bool) -> Report {
        let isCurrent = withExtras
        var results: [BenchmarkResult] = []
        for (index, spec) in specs(d).enumerated() {
            var factor = 1.0
            if !isCurrent, spec.name == d("protocol witness") { factor = 1 / 1.3 }
            if !isCurrent, spec.name == d("Set<Int>") { factor = 1.25 }
            results.append(result(spec, factor: factor, seed: UInt64(index + 1) &* (isCurrent ? 7 : 13)))
            if spec.name == d("protocol witness") {
                results[results.count - 1].functionProfile = profile(d, isCurrent)
                results[results.count - 1].timeProfile = timeProfile(d, isCurrent)
            }
        }
        let created = Date(timeIntervalSince1970: isCurrent ? 1_767_225_600 : 1_767_139_200)
        let metrics = [
            MetricAvailability(metric: .wallTime, available: true),
            MetricAvailability(metric: .cpuTime, available: true),
            MetricAvailability(metric: .allocations, available: true),
            MetricAvailability(
                metric: .instructions, available: false,
                reason: d("perf_event_open: hardware counters not supported on this machine")),
            MetricAvailability(metric: .cycles, available: false, reason: d("perf_event_open: not permitted")),
        ]
        var report = Report(
            createdAt: created, environment: environment(d, build: "release"),
            settings: RunSettings(
                filter: nil, quick: false, samples: 30, timeBudgetSeconds: 1, warmupSeconds: 0.1,
                minSampleNanoseconds: 1_000_000, allocations: true, instructions: false),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 18.5),
            metrics: metrics, benchmarks: results)
        guard isCurrent else { return report }
        report.comparison = comparison(current: report, baseline: baseline(decorate: d), decorate: d)
        report.stalls = stalls(d, origin: created)
        report.startup = startup(d)
        return report
    }

    static func comparison(current: Report, baseline: Report, decorate d: (String) -> String) -> Comparison {
        var entries: [ComparisonEntry] = []
        let old = Dictionary(uniqueKeysWithValues: baseline.benchmarks.map { ($0.id, $0) })
        for result in current.benchmarks {
            guard let before = old[result.id] else { continue }
            let ratio = result.wallTime.median / before.wallTime.median
            let verdict: ComparisonEntry.Verdict =
                ratio > 1.05 ? .regressed : (ratio < 1 / 1.05 ? .improved : (ratio == 1 ? .noChange : .withinNoise))
            var entry = ComparisonEntry(
                id: result.id, metric: .wallTime, thresholdPercent: 5, verdict: verdict,
                explanation: d("median changed by \(Int(((ratio - 1) * 100).rounded())) %"))
            (entry.baselineMedian, entry.currentMedian) = (before.wallTime.median, result.wallTime.median)
            entry.ratio = ratio
            entry.ratioConfidenceInterval = ConfidenceInterval(lower: ratio * 0.97, upper: ratio * 1.03, level: 0.95)
            if verdict == .regressed, let base = before.functionProfile, let new = result.functionProfile {
                entry.functionDifferential = differential(d, base: base, new: new)
            }
            if verdict == .regressed, before.timeProfile != nil, result.timeProfile != nil {
                entry.timeDifferential = timeDifferential(d)
            }
            let unchanged = verdict == .withinNoise || verdict == .noChange
            (entry.pValue, entry.adjustedPValue) = unchanged ? (0.4, 0.9) : (0.0001, 0.0008)
            entries.append(entry)
        }
        var added = ComparisonEntry(
            id: d("IO/decode/yaml"), metric: .wallTime, thresholdPercent: 5, verdict: .added,
            explanation: d("only in the current run"))
        added.currentMedian = 1000
        entries.append(added)
        return Comparison(
            baselineCreatedAt: baseline.createdAt, baselineEnvironment: baseline.environment, thresholdPercent: 5,
            alpha: 0.05, multipleComparisonControl: "holm", entries: entries)
    }

    /// Instructions by function of the witness call: the current build's `Witness.call()` grew and
    /// retains where the baseline's did not.
    static func profile(_ d: (String) -> String, _ isCurrent: Bool) -> FunctionProfile {
        let call = isCurrent ? 130.0 : 100
        let retain = isCurrent ? 20.0 : 0
        return FunctionProfile(
            functions: [
                .init(name: d("run()"), exclusive: 10, inclusive: 10 + call + retain + 40),
                .init(
                    name: d("Witness.call()"), symbol: "$s4Main7WitnessV4callyyF", exclusive: call,
                    inclusive: call + retain),
                .init(name: d("Array<Int>.sum()"), exclusive: 40, inclusive: 40),
            ] + (isCurrent ? [.init(name: d("swift_retain"), exclusive: retain, inclusive: retain)] : []),
            edges: [.init(caller: 0, callee: 1, inclusive: call + retain), .init(caller: 0, callee: 2, inclusive: 40)]
                + (isCurrent ? [.init(caller: 1, callee: 3, inclusive: retain)] : []),
            omittedExclusive: 5)
    }

    static func differential(_ d: (String) -> String, base: FunctionProfile, new: FunctionProfile)
        -> FunctionDifferential
    {
        var grown = FunctionDifferential.Change(
            name: d("Witness.call()"), symbol: "$s4Main7WitnessV4callyyF", baseExclusive: 100, currentExclusive: 130,
            baseInclusive: 100, currentInclusive: 150)
        grown.compiledCode = [
            d("now calls swift_retain 1× (was 0: reference counting), in a loop"), d("96 → 112 bytes"),
        ]
        let retain = FunctionDifferential.Change(
            name: d("swift_retain"), baseExclusive: nil, currentExclusive: 20, baseInclusive: nil, currentInclusive: 20)
        return FunctionDifferential(grown: [grown, retain], baseTotal: 155, currentTotal: 205)
    }

    /// The same profile as sampled CPU time (ns per operation, 400 samples a side).
    static func timeProfile(_ d: (String) -> String, _ isCurrent: Bool) -> FunctionProfile {
        var sampled = profile(d, isCurrent)
        for index in sampled.functions.indices {
            sampled.functions[index].exclusive *= 0.4
            sampled.functions[index].inclusive *= 0.4
        }
        for index in sampled.edges.indices { sampled.edges[index].inclusive *= 0.4 }
        sampled.omittedExclusive *= 0.4
        sampled.samples = 400
        return sampled
    }

    static func timeDifferential(_ d: (String) -> String) -> FunctionDifferential {
        var grown = FunctionDifferential.Change(
            name: d("Witness.call()"), symbol: "$s4Main7WitnessV4callyyF", baseExclusive: 40, currentExclusive: 52,
            baseInclusive: 40, currentInclusive: 60)
        (grown.growthLow, grown.growthHigh) = (6.5, 17.5)
        var differential = FunctionDifferential(grown: [grown], baseTotal: 62, currentTotal: 82)
        (differential.baseSamples, differential.currentSamples) = (400, 400)
        return differential
    }

    static func frame(_ d: (String) -> String, _ symbol: String, _ address: UInt64) -> StackFrame {
        StackFrame(
            address: address, symbol: d(symbol), symbolOffset: 0x24, module: d("/usr/local/bin/server"),
            buildID: "abcd", moduleOffset: address - 0x400000, file: d("Sources/Server/Handler.swift"), line: 42)
    }

    static func stalls(_ d: (String) -> String, origin: Date) -> [StallRecord] {
        let main = frame(d, "main", 0x401000)
        let run = frame(d, "closure #1 in EventLoop<Channel>.run() async throws -> ()", 0x402000)
        let sort = frame(d, "Array<Int>.sort(by: (Int, Int) throws -> Bool) rethrows -> ()", 0x403000)
        let json = frame(d, "JSONDecoder.decode<Config>(_: Config.Type, from: Data) throws -> Config", 0x404000)
        let read = StackFrame(
            address: 0x7f00_0000_1000, symbol: nil, module: d("/lib/x86_64-linux-gnu/libc.so.6"), moduleOffset: 0x1000)
        let tree = CallTreeNode(
            frame: main, count: 40,
            children: [
                CallTreeNode(
                    frame: run, count: 38,
                    children: [
                        CallTreeNode(frame: sort, count: 25, children: []),
                        CallTreeNode(
                            frame: json, count: 10, children: [CallTreeNode(frame: read, count: 6, children: [])]),
                    ])
            ])
        // Whole seconds: report dates are ISO-8601 without fractions, so a round trip keeps them.
        func stall(
            _ watchdog: String, _ seconds: Double, _ ms: Double, _ kind: StallRecord.Classification, _ key: String,
            tree: CallTreeNode?
        )
            -> StallRecord
        {
            StallRecord(
                watchdog: d(watchdog), threadID: 4242, start: origin.addingTimeInterval(seconds),
                durationNanoseconds: ms * 1e6, ongoing: false, thresholdNanoseconds: 50e6,
                threadCPUNanoseconds: kind == .cpuBound ? ms * 0.95e6 : ms * 0.02e6, classification: kind,
                threadStates: kind == .cpuBound ? ["R", "R", "R"] : ["S", "S", "D"], sampleCount: tree?.count ?? 0,
                unansweredSamples: 0, callTree: tree, topStack: [sort, run, main], groupKey: d(key))
        }
        return [
            stall("event-loop-0", 1, 180, .cpuBound, "sort<-run<-main", tree: tree),
            stall(
                "main", 3.0, 90, .blocked, "read<-decode<-main",
                tree: CallTreeNode(
                    frame: nil, count: 12,
                    children: [
                        CallTreeNode(
                            frame: main, count: 12,
                            children: [
                                CallTreeNode(
                                    frame: json, count: 12,
                                    children: [CallTreeNode(frame: read, count: 12, children: [])])
                            ])
                    ])),
            stall("event-loop-0", 6, 320, .cpuBound, "sort<-run<-main", tree: tree),
        ]
    }

    static func startup(_ d: (String) -> String) -> [StartupResult] {
        let marks = [("loader done", 3.0), ("runtime ready", 6.5), ("config loaded", 14.0), ("listening", 21.0)]
        func run(_ mode: String, _ scale: Double) -> StartupResult {
            let phases = marks.map { name, ms in
                let values = (0..<10).map { ms * scale * 1e6 * (1 + Double($0) * 0.01) }
                return StartupPhase(name: d(name), nanosecondsSinceStart: values, statistics: statistics(values))
            }
            let totals = (0..<10).map { 22.0 * scale * 1e6 * (1 + Double($0) * 0.01) }
            return StartupResult(
                command: [d("/usr/local/bin/server"), d("--port=8080")], mode: mode, underPressure: false, runs: 10,
                phases: phases, total: statistics(totals), timeZeroSource: "launcher",
                majorPageFaultsPerLaunch: mode == "cold" ? [120, 118, 125] : [0, 0, 1])
        }
        return [run("cold", 2.4), run("warm", 1.0)]
    }
}
