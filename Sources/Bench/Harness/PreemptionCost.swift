import Foundation
import PerfReport

/// What each involuntary context switch cost one benchmark in CPU time, fitted on its samples: after
/// a neighbour ran on its CPU, a benchmark refills its caches on its own CPU time, and how much that
/// costs differs by benchmark (`Collections/sort/ints` lost ~0.6 ms a switch on this VM, the other
/// three ~0.02 ms), so no factor common to the benchmarks divides it out (docs/regression-gate.md,
/// "What a preemption costs").
struct PreemptionCost: Equatable {
    /// CPU nanoseconds each involuntary switch added, the fitted slope.
    var nanosecondsPerSwitch: Double

    /// Fewest samples a fit needs, and fewest of them preempted.
    static let minimumSamples = 10
    static let minimumPreempted = 5
    /// The slope counts only beyond this many of its standard errors: a cost is subtracted only when
    /// the samples show one, never to make a noisy quiet run look different.
    static let minimumTStatistic = 3.0

    /// The least-squares slope of each sample's CPU time per operation on its involuntary switches
    /// per operation, within each process (each process's means taken out first, so a slower process
    /// is not read as a costlier switch); nil when the samples lack either count, are too few, or show
    /// no cost beyond ``minimumTStatistic``.
    init?(_ result: BenchmarkResult) {
        guard result.samples.count >= Self.minimumSamples else { return nil }
        var byProcess: [Int: [(x: Double, y: Double)]] = [:]
        var preempted = 0
        for sample in result.samples {
            guard let cpu = sample.cpuNanoseconds, let switches = sample.involuntaryContextSwitches,
                sample.iterations > 0
            else { return nil }
            let iterations = Double(sample.iterations)
            if switches > 0 { preempted += 1 }
            byProcess[sample.process ?? 0, default: []].append((Double(switches) / iterations, cpu / iterations))
        }
        guard preempted >= Self.minimumPreempted else { return nil }
        var sxx = 0.0
        var sxy = 0.0
        var centred: [(x: Double, y: Double)] = []
        for points in byProcess.values {
            let meanX = points.reduce(0) { $0 + $1.x } / Double(points.count)
            let meanY = points.reduce(0) { $0 + $1.y } / Double(points.count)
            for point in points {
                let x = point.x - meanX
                let y = point.y - meanY
                sxx += x * x
                sxy += x * y
                centred.append((x, y))
            }
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        // Degrees of freedom: the samples less one mean per process and the slope.
        let freedom = centred.count - byProcess.count - 1
        guard slope > 0, freedom > 0 else { return nil }
        let residual = centred.reduce(0.0) { sum, point in
            let error = point.y - slope * point.x
            return sum + error * error
        }
        let standardError = (residual / Double(freedom) / sxx).squareRoot()
        guard standardError == 0 || slope / standardError >= Self.minimumTStatistic else { return nil }
        nanosecondsPerSwitch = slope
    }

    /// Each sample's CPU time per operation less what its preemptions cost; nil when a sample lacks
    /// the counts or would come out at or below zero (the fit does not describe it).
    func corrected(_ result: BenchmarkResult) -> [Double]? {
        var values: [Double] = []
        values.reserveCapacity(result.samples.count)
        for sample in result.samples {
            guard let cpu = sample.cpuNanoseconds, let switches = sample.involuntaryContextSwitches,
                sample.iterations > 0
            else { return nil }
            let value = (cpu - nanosecondsPerSwitch * Double(switches)) / Double(sample.iterations)
            guard value > 0 else { return nil }
            values.append(value)
        }
        return values
    }
}
