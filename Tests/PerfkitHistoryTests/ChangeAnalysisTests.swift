import Foundation
import Testing

@testable import PerfkitHistory

/// Change points over stored runs: series per machine × benchmark × metric along the first-parent
/// order, reported once each, with what the instructions did.
struct ChangeAnalysisTests {
    typealias F = HistoryFixtures

    /// 30 commits; `sum` gets 6% slower at commit 12 and `sort` 10% faster at 20, in wall time with
    /// 0.3% noise and in exact instruction counts: those two changes per metric, nothing else.
    @Test func findsTheTwoChangesAtTheirCommits() {
        let noise = F.noise(count: 60, relativeSpread: 0.003, seed: 11)
        let runs = (1...30).map { n in
            let sum = n >= 12 ? 1.06 : 1.0
            let sort = n >= 20 ? 0.9 : 1.0
            return F.run(
                commit: n,
                [
                    "Demo/work/sum": [.wall: 1000 * sum * noise[n], .instructions: 5000 * sum],
                    "Demo/work/sort": [.wall: 2000 * sort * noise[30 + n - 1], .instructions: 9000 * sort],
                ])
        }
        let outcome = ChangeAnalysis().analyse(runs, order: F.order)
        #expect(outcome.seriesExamined == 4)
        let found = outcome.changes.map { "\($0.benchmark) \($0.metric) \($0.commitPosition ?? 0) \($0.isRegression)" }
        #expect(
            found == [
                "Demo/work/sum wall 12 true", "Demo/work/sum instructions 12 true",
                "Demo/work/sort wall 20 false", "Demo/work/sort instructions 20 false",
            ])
        let wall = outcome.changes[0]
        #expect(wall.previousCommit == F.commit(11))
        #expect(wall.unmeasuredCommits == 0)
        #expect(abs(wall.relativeShift - 0.06) < 0.005)
        #expect(wall.before.runs == 11 && wall.after.runs == 19)
        #expect(wall.before.lower < wall.before.mean && wall.before.mean < wall.before.upper)
        guard case .moved(let shift)? = wall.instructions else {
            Issue.record("expected the instructions to move with the time: \(String(describing: wall.instructions))")
            return
        }
        #expect(abs(shift - 0.06) < 1e-9)
        #expect(outcome.changes[1].instructions == nil, "a count has no instruction verdict")
    }

    /// Several runs of one commit are one level: the change is placed at a commit, never between
    /// two runs of the same commit.
    @Test func runsOfOneCommitStayOnOneLevel() {
        var runs: [HistoryRun] = []
        for n in 1...8 {
            for sequence in 0..<3 {
                // Commit 5's third run alone is slow (a noisy moment); commit 6 on is 10% slower.
                let value = n >= 6 ? 1100.0 : (n == 5 && sequence == 2 ? 1100 : 1000)
                runs.append(F.run(commit: n, sequence: sequence, ["Demo/work/sum": [.instructions: value]]))
            }
        }
        let changes = ChangeAnalysis().analyse(runs, order: F.order).changes
        #expect(changes.map(\.commitPosition) == [6])
    }

    @Test func aTimeShiftWithFlatInstructionsIsFlagged() {
        let runs = (1...12).map { n in
            F.run(commit: n, ["Demo/work/sum": [.wall: n >= 7 ? 1100 : 1000, .instructions: 5000 + Double(n % 2)]])
        }
        let changes = ChangeAnalysis(metrics: [.wall, .instructions]).analyse(runs, order: F.order).changes
        #expect(changes.count == 1)
        guard case .flat(let shift)? = changes.first?.instructions else {
            Issue.record("expected flat instructions: \(changes)")
            return
        }
        #expect(abs(shift) < 0.001)
        #expect(HistoryWording.instructions(changes[0])?.contains("layout") == true)
        // Without instruction counts the reader is told they are missing.
        let timeOnly = (1...12).map { n in F.run(commit: n, ["Demo/work/sum": [.wall: n >= 7 ? 1100 : 1000]]) }
        #expect(ChangeAnalysis().analyse(timeOnly, order: F.order).changes.first?.instructions == .notMeasured)
    }

    /// The machine slows down at commit 7, which (like those around it) left the executable as it
    /// was: the step is found, called the machine's and ordered after the commits' changes; a
    /// real regression at commit 10, where the executable changed, stays a regression.
    @Test func aShiftBetweenRunsOfOneExecutableIsTheMachines() {
        let runs = (1...14).map { n in
            let machine = n >= 7 ? 1.2 : 1.0
            let code = n >= 10 ? 1.1 : 1.0
            return F.run(
                commit: n,
                [
                    "Demo/work/sum": [.wall: 1000 * machine, .instructions: 5000],
                    "Demo/work/sort": [.instructions: 7000 * code],
                ], buildID: n >= 10 ? "b2" : "a1")
        }
        let changes = ChangeAnalysis().analyse(runs, order: F.order).changes
        #expect(
            changes.map { "\($0.benchmark) \($0.metric) \($0.commitPosition ?? 0)" } == [
                "Demo/work/sort instructions 10", "Demo/work/sum wall 7",
            ])
        #expect(changes.map(\.executable) == [.changed, .same])
        #expect(!changes[0].isMachineShift && changes[1].isMachineShift)
        #expect(HistoryWording.kind(changes[1]) == "machine shift")
        #expect(HistoryWording.executable(changes[1])?.contains("not the code") == true)
        // Runs without build IDs (reports of an older perfkit) cannot tell: a change like any other.
        let unknown = runs.map { run in
            var run = run
            for index in run.results.indices { run.results[index].executableBuildID = nil }
            return run
        }
        let unknownChanges = ChangeAnalysis().analyse(unknown, order: F.order).changes
        #expect(unknownChanges.map(\.executable) == [nil, nil])
        #expect(unknownChanges.allSatisfy { !$0.isMachineShift })
    }

    /// Commits 8-11 were not measured: the change lies between 7 and 12, and says so.
    @Test func unmeasuredCommitsMakeARange() {
        let runs = (Array(1...7) + Array(12...20)).map { n in
            F.run(commit: n, ["Demo/work/sum": [.instructions: n >= 12 ? 1200 : 1000]])
        }
        let change = try! #require(ChangeAnalysis().analyse(runs, order: F.order).changes.first)
        #expect(change.commit == F.commit(12) && change.previousCommit == F.commit(7))
        #expect(change.unmeasuredCommits == 4)
        #expect(HistoryWording.place(change).contains("4 commits between were not measured"))
    }

    /// Runs of another machine at another level, dirty runs and runs off the history are not part
    /// of the series (and are counted).
    @Test func otherMachinesDirtyAndOffHistoryRunsDoNotMix() {
        var runs = (1...10).map { n in F.run(commit: n, ["Demo/work/sum": [.instructions: 1000]]) }
        runs += (1...10).map { n in
            F.run(commit: n, machine: F.otherMachine, ["Demo/work/sum": [.instructions: n % 2 == 0 ? 1500 : 1000]])
        }
        runs.append(F.run(commit: 10, dirty: true, ["Demo/work/sum": [.instructions: 9000]]))
        var off = F.run(commit: 5, sequence: 9, ["Demo/work/sum": [.instructions: 9000]])
        off.commit = String(repeating: "e", count: 40)
        runs.append(off)
        let outcome = ChangeAnalysis(machine: F.machine.label).analyse(runs, order: F.order)
        #expect(outcome.changes.isEmpty)
        #expect(outcome.skipped == [.otherMachine: 10, .dirty: 1, .offHistory: 1])
    }

    /// A benchmark that declares a 10% threshold is not reported for a 6% shift.
    @Test func aBenchmarksOwnThresholdApplies() {
        let runs = (1...12).map { n in
            F.run(commit: n, ["Demo/hop/noisy": [.instructions: n >= 7 ? 1060 : 1000]], threshold: 10)
        }
        #expect(ChangeAnalysis().analyse(runs, order: F.order).changes.isEmpty)
        let undeclared = runs.map { run in
            var run = run
            for index in run.results.indices { run.results[index].thresholdPercent = nil }
            return run
        }
        #expect(ChangeAnalysis().analyse(undeclared, order: F.order).changes.count == 1)
    }

    /// Without a repository, the positions stored when the runs were added order them.
    @Test func storedPositionsServeWithoutARepository() {
        let runs = (1...10).map { n in F.run(commit: n, ["Demo/work/sum": [.instructions: n >= 4 ? 1100 : 1000]]) }
        #expect(ChangeAnalysis().analyse(runs.reversed(), order: nil).changes.map(\.commitPosition) == [4])
    }
}
