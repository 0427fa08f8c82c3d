import PerfReport

/// Turns a raw `Measurement` into the report's `BenchmarkResult`: statistics per metric,
/// per-operation means of the counted metrics, and warnings. Pure: no clocks, no I/O.
public enum ResultAnalysis {
    public static func result(of measurement: Measurement) -> BenchmarkResult {
        let samples = measurement.samples
        let wall = SampleStatistics.summarize(samples.map(\.wallNanosecondsPerOperation))
        let cpuValues = samples.compactMap { sample in
            sample.cpuNanoseconds.map { $0 / Double(max(sample.iterations, 1)) }
        }
        let cpu =
            cpuValues.count == samples.count && !cpuValues.isEmpty
            ? SampleStatistics.summarize(cpuValues) : nil

        var warnings = StabilityRules.warnings(for: wall, samples: samples)
        if measurement.stoppedByBudget {
            warnings.append(
                Warning(
                    rule: "time-budget-limited-samples",
                    message: "the time budget stopped sampling after \(samples.count) samples"))
        }
        if let reason = measurement.timeProfileUnavailable {
            warnings.append(Warning(rule: "time-profile-unavailable", message: "no time profile: \(reason)"))
        }
        let benchmark = measurement.benchmark
        var result = BenchmarkResult(
            id: measurement.id,
            suite: benchmark.suite,
            group: benchmark.group,
            name: benchmark.name,
            parameter: measurement.parameter,
            throughput: benchmark.throughput(parameter: measurement.parameter),
            thresholdPercent: benchmark.thresholdPercent,
            samples: samples,
            wallTime: wall,
            cpuTime: cpu,
            allocationsPerOperation: perOperation(samples, \.allocations),
            allocatedBytesPerOperation: perOperation(samples, \.allocatedBytes),
            instructionsPerOperation: perOperation(samples, \.instructions),
            instructionsSource: samples.first?.instructions == nil
                ? nil : measurement.instructionsSource ?? "perf_event",
            warnings: warnings,
            counters: measurement.counters)
        result.functionProfile = measurement.functionProfile
        result.timeProfile = measurement.timeProfile
        return result
    }

    /// Total of a counted metric over all samples divided by all iterations; nil unless every
    /// sample has it.
    static func perOperation<T: BinaryInteger>(_ samples: [Sample], _ keyPath: KeyPath<Sample, T?>) -> Double? {
        let values = samples.compactMap { $0[keyPath: keyPath] }
        guard !samples.isEmpty, values.count == samples.count else { return nil }
        let iterations = samples.reduce(0.0) { $0 + Double($1.iterations) }
        return values.reduce(0.0) { $0 + Double($1) } / max(iterations, 1)
    }

    static func perOperation(_ samples: [Sample], _ keyPath: KeyPath<Sample, Double?>) -> Double? {
        let values = samples.compactMap { $0[keyPath: keyPath] }
        guard !samples.isEmpty, values.count == samples.count else { return nil }
        let iterations = samples.reduce(0.0) { $0 + Double($1.iterations) }
        return values.reduce(0, +) / max(iterations, 1)
    }
}
