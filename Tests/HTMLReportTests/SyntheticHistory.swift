import Foundation
import HTMLReport
import PerfkitHistory

/// Histories built in code: runs along 30 commits whose shifts the analysis finds, so that what the
/// page draws can be checked against the outcome.
enum SyntheticHistory {
    static let machine = MachineFingerprint(
        host: "ci-runner-7", cpuModel: "AMD EPYC 7763", coreCount: 2, kernel: "6.1", swiftVersion: "6.3.1",
        buildConfiguration: "release")

    /// A 40-character hash for commit number `n` (position n on the first-parent history), unique
    /// in its first 10 characters as people quote it.
    static func commit(_ n: Int) -> String { String(format: "%06x", n) + String(repeating: "fe", count: 17) }

    static func order(_ count: Int) -> CommitOrder { CommitOrder(oldestFirst: (1...count).map(commit)) }

    /// `sum` 6% slower from commit 12 (wall time and instructions), `sort` 10% faster in wall time
    /// from commit 20 with its instructions flat, `flat` unchanged; two runs of commit 25; one dirty
    /// run and one of another machine that are left out. `decorate` is applied to every name.
    static func runs(decorate d: (String) -> String = { $0 }) -> [HistoryRun] {
        var noise = SyntheticReports.Noise(state: 42)
        func jitter() -> Double { 1 + 0.004 * (noise.next() - 0.5) }
        var machine = machine
        machine.name = d("ci-large")
        var runs: [HistoryRun] = []
        for n in 1...30 {
            for sequence in 0..<(n == 25 ? 2 : 1) {
                let sum = n >= 12 ? 1.06 : 1.0
                let sort = n >= 20 ? 0.9 : 1.0
                var results: [HistoryResult] = []
                for (benchmark, wall, instructions) in [
                    ("Demo/work/sum", 1000 * sum, 5000 * sum), ("Demo/work/sort", 2000 * sort, 9000.0),
                    ("Demo/work/flat", 300.0, 1200.0),
                ] {
                    let value = wall * jitter()
                    results.append(
                        HistoryResult(
                            benchmark: d(benchmark), metric: .wall, value: value, lower: value * 0.99,
                            upper: value * 1.01, sampleCount: 10))
                    results.append(
                        HistoryResult(
                            benchmark: d(benchmark), metric: .instructions, value: instructions, sampleCount: 10))
                }
                runs.append(run(commit: n, sequence: sequence, machine: machine, results: results))
            }
        }
        runs.append(run(commit: 30, sequence: 9, machine: machine, dirty: true, results: runs[0].results))
        var laptop = machine
        laptop.name = d("laptop")
        runs.append(run(commit: 29, sequence: 0, machine: laptop, results: runs[0].results))
        return runs
    }

    /// 16 commits measured with build IDs: `sum`'s wall time 20% higher from commit 9 while the
    /// executable stayed the same (a shift of the machine), `sort`'s instructions 10% higher from
    /// commit 12, where the executable changed (a regression).
    static func machineShift() -> [HistoryRun] {
        var noise = SyntheticReports.Noise(state: 9)
        return (1...16).map { n in
            let buildID = n >= 12 ? "b2" : "a1"
            let wall = 1000 * (n >= 9 ? 1.2 : 1.0) * (1 + 0.004 * (noise.next() - 0.5))
            return run(
                commit: n, sequence: 0, machine: machine,
                results: [
                    HistoryResult(
                        benchmark: "Demo/work/sum", metric: .wall, value: wall, lower: wall * 0.99, upper: wall * 1.01,
                        sampleCount: 10, executableBuildID: buildID),
                    HistoryResult(
                        benchmark: "Demo/work/sort", metric: .instructions, value: 9000 * (n >= 12 ? 1.1 : 1.0),
                        sampleCount: 10, executableBuildID: buildID),
                ])
        }
    }

    static func run(
        commit n: Int, sequence: Int, machine: MachineFingerprint, dirty: Bool = false, results: [HistoryResult]
    ) -> HistoryRun {
        HistoryRun(
            digest: "run-\(n)-\(sequence)-\(machine.key)-\(dirty)", machine: machine, commit: commit(n), dirty: dirty,
            commitPosition: n, branch: "main",
            createdAt: Date(timeIntervalSince1970: 1_767_225_600 + Double(n * 3600 + sequence)),
            profile: "quick", complete: true, results: results)
    }

    /// The page of `runs` as `history report` writes it for one machine's series.
    static func page(
        _ runs: [HistoryRun], order: CommitOrder = order(300), analysis: ChangeAnalysis = ChangeAnalysis()
    ) -> HistoryPage {
        HistoryPage(
            store: "Reports/history.sqlite", generatedAt: Date(timeIntervalSince1970: 1_767_312_000), runs: runs,
            series: analysis.series(runs, order: order), outcome: analysis.analyse(runs, order: order), ordered: true)
    }

    /// 500 benchmarks × wall time and instructions over 20 commits (1,000 series); every 50th
    /// benchmark's instructions rise 10% at commit 11. One more benchmark has 300 commits of runs,
    /// more than a chart draws.
    static func large() -> [HistoryRun] {
        var runs: [HistoryRun] = []
        var noise = SyntheticReports.Noise(state: 7)
        for n in 1...20 {
            var results: [HistoryResult] = []
            for index in 0..<500 {
                let value = 100 + Double(index)
                let wall = value * (1 + 0.004 * (noise.next() - 0.5))
                results.append(
                    HistoryResult(
                        benchmark: "Big/group\(index / 50)/case\(index)", metric: .wall, value: wall,
                        lower: wall * 0.99, upper: wall * 1.01, sampleCount: 10))
                let shifted = index % 50 == 0 && n >= 11 ? 1.1 : 1.0
                results.append(
                    HistoryResult(
                        benchmark: "Big/group\(index / 50)/case\(index)", metric: .instructions,
                        value: value * 10 * shifted, sampleCount: 10))
            }
            runs.append(run(commit: n, sequence: 0, machine: machine, results: results))
        }
        for n in 1...300 {
            let value = 50 * (1 + 0.004 * (noise.next() - 0.5))
            runs.append(
                run(
                    commit: n, sequence: 1, machine: machine,
                    results: [HistoryResult(benchmark: "Long/series/case", metric: .wall, value: value, sampleCount: 5)]
                ))
        }
        return runs
    }
}
