import ArgumentParser
import Foundation
import Harness
import PerfReport

/// The value of `--gate-metric instructions,allocations`: the exact counts a baseline gate compares
/// instead of wall time, each once, in the order given. Only machine-stable metrics
/// (``BaselineGate/stableMetrics``): a time is gated by `perfkit ci`, both sides on one machine.
struct GateMetrics: ExpressibleByArgument {
    var metrics: [Metric]

    init?(argument: String) {
        var metrics: [Metric] = []
        for name in argument.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let metric = Metric(rawValue: name), BaselineGate.stableMetrics.contains(metric) else { return nil }
            if !metrics.contains(metric) { metrics.append(metric) }
        }
        guard !metrics.isEmpty else { return nil }
        self.metrics = metrics
    }

    static var allValueStrings: [String] { BaselineGate.stableMetrics.map(\.rawValue) }

    var defaultValueDescription: String { metrics.map(\.rawValue).joined(separator: ",") }
}
