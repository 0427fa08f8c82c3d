import Harness
import PerfReport

/// `gate`'s admission of `baseline` (``RegressionGate/admit(baseline:currentIDs:timing:)``), a
/// refusal worded for the command line with the baseline's `path`.
func admit(
    _ baseline: Report, path: String, currentIDs: Set<String>, timing: TimingConditions, gate: RegressionGate
) throws {
    do {
        try gate.admit(baseline: baseline, currentIDs: currentIDs, timing: timing)
    } catch {
        throw PerfkitError(error, path: path)
    }
}

extension PerfkitError {
    /// A baseline the gate does not compare with: the input is wrong, and the message says what to
    /// gate on instead where there is something.
    init(_ refusal: RegressionGate.Refusal, path: String) {
        let message: String
        switch refusal.kind {
        case .sharesNoBenchmark(let count, let example):
            message =
                "\(path): shares no benchmark with this run (\(count) others, e.g. \(example ?? "none")): "
                + "a baseline of another package or suite?"
        case .incomparableTimes(let differences):
            message =
                "\(path): cannot compare wall time: \(differences.joined(separator: "; ")); gate on exact counts "
                + "instead (run --baseline \(path) --instructions --allocations --gate-metric instructions,allocations)"
        }
        self.init(.invalidInput, message, cause: refusal)
    }
}
