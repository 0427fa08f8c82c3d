import ArgumentParser
import Foundation
import PerfkitHistory

struct HistoryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the stored runs, per machine, oldest first."
    )

    @OptionGroup var store: HistoryStoreOption

    func run() throws {
        let opened = try store.open(create: false)
        let runs: [HistoryRun]
        do {
            runs = try opened.runs()
        } catch let error as StoreError {
            throw PerfkitError(error)
        }
        let machines = Dictionary(grouping: runs, by: \.machine.key)
        print(
            "history: \(opened.location): \(runs.count) run\(runs.count == 1 ? "" : "s") on \(machines.count) machine\(machines.count == 1 ? "" : "s")"
        )
        for (_, machineRuns) in machines.sorted(by: { $0.value[0].createdAt < $1.value[0].createdAt }) {
            print("\(machineRuns[0].machine.label):")
            for run in machineRuns {
                let commit = run.commit.map { HistoryWording.short($0) + (run.dirty ? "-dirty" : "") } ?? "no commit"
                let position = run.commitPosition.map { " #\($0)" } ?? ""
                let branch = run.branch.map { " (\($0))" } ?? ""
                let benchmarks = Set(run.results.map(\.benchmark)).count
                print(
                    "  \(run.createdAt.formatted(.iso8601))  \(commit)\(position)\(branch)  "
                        + "\(benchmarks) benchmark\(benchmarks == 1 ? "" : "s")\(run.profile.map { ", \($0)" } ?? "")\(run.complete ? "" : ", incomplete")"
                )
            }
        }
    }
}
