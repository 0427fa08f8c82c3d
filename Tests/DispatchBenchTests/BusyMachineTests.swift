import Harness
import PerfReport
import Testing

@testable import DispatchBench

/// A claim about contending threads is inconclusive when other work wanted its CPUs: decided from the
/// samples' other runnable tasks (plain data), never from how fast this machine runs the tests.
@Suite struct BusyMachineTests {
    private func side(_ label: String, _ otherRunnable: Double?) -> BusyMachine.Side {
        BusyMachine.Side(label: label, otherRunnable: otherRunnable, samples: 150)
    }

    private func twoThreads(_ ours: Double?, _ theirs: Double?, processors: Int = 2) -> BusyMachine {
        BusyMachine(
            cpusNeeded: 2, processors: processors,
            sides: [side("this case", ours), side("lock-pthread-mutex-r99", theirs)])
    }

    @Test func quietMachineKeepsHeldAndDidNotHold() {
        for verdict in [Claim.Verdict.held, .didNotHold, .inconclusive] {
            let judged = twoThreads(0.1, 0.2).judge((verdict, "1.17× [1.09×–1.23×]"))
            #expect(judged.0 == verdict)
            #expect(judged.1 == "1.17× [1.09×–1.23×]")
        }
    }

    @Test func busyMachineMakesHeldAndDidNotHoldInconclusiveWithTheEvidence() {
        for (verdict, words) in [(Claim.Verdict.held, "held"), (.didNotHold, "did not hold")] {
            let (judged, evidence) = twoThreads(1.8, 1.6).judge((verdict, "1.17× [1.09×–1.23×] over 150 paired rounds"))
            #expect(judged == .inconclusive)
            #expect(
                evidence
                    == "the machine was busy (other runnable tasks averaged 1.8 around this case's 150 samples and "
                    + "1.6 around lock-pthread-mutex-r99's 150 samples, while its 2 threads needed 2 of 2 CPUs: "
                    + "over 0.75 means they waited for them); the times alone said \(words): "
                    + "1.17× [1.09×–1.23×] over 150 paired rounds")
        }
    }

    /// Either side's samples decide: the two are compared round by round, and a busy half spoils both.
    @Test func busyComparedCaseIsEnough() {
        #expect(twoThreads(0.1, 0.9).judge((.held, "x")).0 == .inconclusive)
        #expect(twoThreads(0.9, 0.1).judge((.didNotHold, "x")).0 == .inconclusive)
    }

    @Test func thresholdIsThreeQuartersOfATaskBeyondTheFreeCPUs() {
        #expect(!twoThreads(0.75, 0.57).wasBusy)
        #expect(twoThreads(0.76, 0.0).wasBusy)
        // Four CPUs leave two free for other work before two threads wait.
        #expect(!twoThreads(2.7, 2.75, processors: 4).wasBusy)
        #expect(twoThreads(2.8, 0, processors: 4).wasBusy)
    }

    @Test func singleThreadClaimsAreUnaffected() {
        let busy = BusyMachine(cpusNeeded: 1, processors: 2, sides: [side("this case", 4), side("other", 4)])
        #expect(!busy.wasBusy)
        #expect(busy.judge((.held, "x")) == (.held, "x"))
        #expect(busy.judge((.didNotHold, "y")) == (.didNotHold, "y"))
    }

    @Test func missingEvidenceKeepsTheVerdict() {
        #expect(twoThreads(nil, nil).judge((.held, "x")) == (.held, "x"))
        #expect(!twoThreads(nil, 0.2).wasBusy)
    }

    @Test func sideAveragesItsSamplesAndNeedsThemAll() {
        var result = LocalDriver.result("DispatchBench/gcd/lock-nslock-r99", median: 10, halfWidth: 1)
        for index in result.samples.indices {
            result.samples[index].otherRunnableTasks = index.isMultiple(of: 2) ? 1 : 2
        }
        #expect(BusyMachine.Side(result, label: "this case") == side("this case", 1.5).with(samples: 50))
        result.samples[3].otherRunnableTasks = nil
        #expect(BusyMachine.Side(result, label: "this case").otherRunnable == nil)
    }

    // MARK: Through the lock claims, as a run's analysis sees them

    /// `NSLock` 1.2× `pthread_mutex` in each of 40 paired rounds (held: NSLock is claimed slower), with
    /// `otherRunnable` other tasks around every sample, on 2 CPUs.
    private func lockResults(threads: Int, otherRunnable: Double?) -> [BenchmarkResult] {
        func result(_ name: String, _ nanoseconds: Double) -> BenchmarkResult {
            let samples = (0..<40).map { round in
                Sample(
                    iterations: 1, wallNanoseconds: nanoseconds + Double(round % 7), round: round,
                    otherRunnableTasks: otherRunnable)
            }
            return BenchmarkResult(
                id: "DispatchBench/gcd/\(name)[\(threads)]", suite: "DispatchBench", group: "gcd", name: name,
                parameter: threads, samples: samples,
                wallTime: LocalDriver.statistics(median: nanoseconds, lower: nanoseconds, upper: nanoseconds + 6))
        }
        var results = [result("lock-pthread-mutex-r99", 1000), result("lock-nslock-r99", 1200)]
        analyzeClaims(lockCases, &results, processors: 2)
        return results
    }

    private func nslockClaim(threads: Int, otherRunnable: Double?) -> Claim? {
        lockResults(threads: threads, otherRunnable: otherRunnable).first { $0.name == "lock-nslock-r99" }?.claim
    }

    @Test func lockClaimOnTwoThreadsIsInconclusiveOnlyWhenBusy() throws {
        let quiet = try #require(nslockClaim(threads: 2, otherRunnable: 0))
        #expect(quiet.verdict == .held)
        let busy = try #require(nslockClaim(threads: 2, otherRunnable: 2))
        #expect(busy.verdict == .inconclusive)
        #expect(busy.evidence.hasPrefix("the machine was busy (other runnable tasks averaged 2.0 around this case's"))
        #expect(busy.evidence.contains("the times alone said held: 1.20×"))
        let unknown = try #require(nslockClaim(threads: 2, otherRunnable: nil))
        #expect(unknown.verdict == .held)
    }

    @Test func lockClaimOnOneThreadIgnoresABusyMachine() throws {
        let claim = try #require(nslockClaim(threads: 1, otherRunnable: 3))
        #expect(claim.verdict == .held)
        #expect(!claim.evidence.contains("busy"))
    }

    @Test func findingsSummaryIsTheBusyClause() throws {
        let claim = try #require(nslockClaim(threads: 2, otherRunnable: 2))
        let summary = claim.evidence.prefix { $0 != ";" }
        #expect(summary.hasPrefix("the machine was busy ("))
        #expect(summary.hasSuffix("means they waited for them)"))
    }
}

extension BusyMachine.Side {
    fileprivate func with(samples: Int) -> Self {
        var copy = self
        copy.samples = samples
        return copy
    }
}
