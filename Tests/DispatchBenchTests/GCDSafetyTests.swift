import Dispatch
import Foundation
import Harness
import PerfReport
import Testing

@testable import DispatchBench

/// The GCD safety claims, tested rather than assumed (counts and orders, never times).
@Suite(.serialized) struct GCDSafetyTests {
    @Test func serialQueueNeverRunsTwoBlocksAtOnceAndKeepsOrder() {
        let queue = DispatchQueue(label: "test.serial")
        let gauge = ConcurrencyGauge()
        let order = CompletionOrder()
        for _ in 0..<5 { runSafetyRound(on: queue, gauge: gauge, order: order) }
        #expect(gauge.peak == 1)
        #expect(order.counters["outOfOrderRounds"] == 0)
        #expect(order.counters["rounds"] == 5)
    }

    /// Block 0 waits until block 1 has run: on a concurrent queue block 1 starts while block 0 is
    /// still running and finishes first. (Deterministic, unlike racing spins, which a busy test
    /// process can serialise onto one GCD thread.)
    @Test func concurrentQueueRunsBlocksAtOnceAndFinishesOutOfOrder() {
        let queue = DispatchQueue(label: "test.concurrent", attributes: .concurrent)
        let order = CompletionOrder()
        let secondRan = DispatchSemaphore(value: 0)
        let overlapped = ConcurrencyGauge()
        let group = DispatchGroup()
        queue.async(group: group) {
            if secondRan.wait(timeout: .now() + 10) == .success { overlapped.enter() }
            order.finished(0)
        }
        queue.async(group: group) {
            order.finished(1)
            secondRan.signal()
        }
        group.wait()
        order.endRound()
        #expect(overlapped.peak == 1, "block 1 did not run while block 0 was running")
        #expect(order.counters["outOfOrderRounds"] == 1)
    }

    /// The two classic deadlocks, each in a child process (a deadlock cannot be undone: its threads
    /// would stay blocked in this process and starve the GCD pool for other tests):
    /// - `sync` onto the queue you are on: libdispatch on Linux traps (SIGILL) instead of hanging;
    /// - lock-order inversion (two serial queues each `sync` onto the other): libdispatch cannot see
    ///   it, so the child detects it with a timeout, reports it, and exits.
    @Test func deadlocksAreDetectedNotHung() throws {
        let swiftc = try #require(CompiledBinaryTests.swiftc(), "swiftc not found")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatchbench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("deadlock.swift")
        try """
        import Dispatch
        if CommandLine.arguments.count > 1 {
            let queue = DispatchQueue(label: "q")
            let done = DispatchSemaphore(value: 0)
            queue.async { queue.sync {}; done.signal() }
            print(done.wait(timeout: .now() + 2) == .timedOut ? "deadlocked" : "finished")
        } else {
            let first = DispatchQueue(label: "first"), second = DispatchQueue(label: "second")
            let bothInside = DispatchGroup(), finished = DispatchGroup()
            bothInside.enter(); bothInside.enter(); finished.enter(); finished.enter()
            for (outer, inner) in [(first, second), (second, first)] {
                outer.async { bothInside.leave(); bothInside.wait(); inner.sync {}; finished.leave() }
            }
            print(finished.wait(timeout: .now() + 0.5) == .timedOut ? "deadlocked" : "finished")
        }
        """.write(to: source, atomically: true, encoding: .utf8)
        let binary = directory.appendingPathComponent("deadlock").path
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: swiftc)
        compile.arguments = [source.path, "-o", binary]
        try compile.run()
        compile.waitUntilExit()
        try #require(compile.terminationStatus == 0)

        func runChild(_ arguments: [String]) throws -> (
            output: String, reason: Process.TerminationReason, timedOut: Bool
        ) {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: binary)
            child.arguments = arguments
            let pipe = Pipe()
            child.standardOutput = pipe
            child.standardError = FileHandle.nullDevice
            child.environment = ["SWIFT_BACKTRACE": "enable=no"]
            try child.run()
            let exited = DispatchSemaphore(value: 0)
            Thread {
                child.waitUntilExit()
                exited.signal()
            }.start()
            let timedOut = exited.wait(timeout: .now() + 20) == .timedOut
            if timedOut { child.terminate() }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (output, child.terminationReason, timedOut)
        }

        let inversion = try runChild([])
        #expect(!inversion.timedOut)
        #expect(inversion.output.contains("deadlocked"))

        let syncOntoSelf = try runChild(["sync-onto-current-queue"])
        #expect(!syncOntoSelf.timedOut, "the child hung instead of trapping")
        #expect(syncOntoSelf.reason == .uncaughtSignal)
        #expect(!syncOntoSelf.output.contains("finished"))
    }

    @Test func everyLockMechanismCountsCorrectly() {
        let gang = ThreadGang(count: 3)
        defer { gang.stop() }
        for mechanism in LockMechanism.allCases where mechanism != .actor {
            let counter = mechanism.makeCounter()
            gang.run { _ in for _ in 0..<500 { counter.write() } }
            counter.drain()
            #expect(counter.read() == 1500, "\(mechanism)")
        }
    }

    /// Contending threads run a sample's batches as races of `lockRaceBatches`, every access done
    /// exactly once; one thread runs them in one go.
    @Test func contendingThreadsRunTheirAccessesInRacesOfAFewBatches() {
        for (threads, iterations, races) in [(2, 250, 2), (2, 40, 1), (2, 1000, 10), (1, 1000, 1)] {
            let gang = ThreadGang(count: threads)
            defer { gang.stop() }
            let counter = LockMechanism.mutex.makeCounter()
            contend(
                .mutex, gang: gang, readPercent: 0, iterations: iterations, counter: counter, actor: ActorCounter(),
                tasks: threads)
            #expect(counter.read() == iterations * lockBatch, "\(threads) threads, \(iterations) batches")
            #expect(gang.runs == races, "\(threads) threads, \(iterations) batches")
        }
    }

    @Test func operationQueueWidthAndConcurrentPerformBoundConcurrency() {
        let watch = ExplosionWatch()
        defer { watch.sampler.stop() }
        for _ in 0..<blockingItems { watch.operationQueue.addOperation { watch.blockingItem() } }
        watch.operationQueue.waitUntilAllOperationsAreFinished()
        #expect(watch.gauge.peak <= operationQueueWidth)
        #expect(watch.gauge.peak >= 1)
    }

    /// Every GCD benchmark runs and gets a claim; the safety ones hold.
    @Test func suiteRunsWithClaims() throws {
        let results = try LocalDriver.run(dispatchBenchSuite, iterations: 2, samples: 2) { $0.group == "gcd" }
        #expect(results.count == claimedCases.count - inoutCases.count + lockCases.count * (lockThreadCounts.count - 1))
        for result in results {
            #expect(result.claim != nil, "\(result.id) has no claim")
        }
        for name in ["safety-serial-exclusive", "explosion-operation-queue"] {
            #expect(results.first { $0.name == name }?.claim?.verdict == .held, "\(name)")
        }
    }
}

@Suite struct TimingDifferenceTests {
    /// 50 samples: a fast body at `fast`…`fast` + 1 (every fifth sample) and the rest at `slow`, the
    /// shape of times on a host that slows some samples down.
    private func result(fast: Double, slow: Double, count: Int = 50) -> BenchmarkResult {
        let times = (0..<count).map { $0 % 5 == 0 ? fast + Double($0) / Double(count) : slow }
        var result = LocalDriver.result("S/g/c", median: slow, halfWidth: 0)
        result.samples = times.map { Sample(iterations: 1, wallNanoseconds: $0) }
        return result
    }

    @Test func separatedLowQuantilesAreSignificant() {
        let a = result(fast: 10, slow: 30)
        let b = result(fast: 20, slow: 30)
        #expect(TimingDifference(a, comparedTo: b).direction == .lower)
        #expect(TimingDifference(b, comparedTo: a).direction == .higher)
        #expect(TimingDifference(a, comparedTo: b).words.contains("10th percentile"))
    }

    /// The medians are the same (the host's slow spells), the undisturbed times are not.
    @Test func slowSpellsDoNotHideADifference() {
        let a = result(fast: 10, slow: 40)
        let b = result(fast: 12, slow: 40)
        let difference = TimingDifference(a, comparedTo: b)
        #expect(difference.direction == .lower)
        #expect(difference.sentence(a, vs: "b", b).contains("medians 40.0 ns and 40.0 ns"))
    }

    @Test func overlappingIntervalsAreNotSignificant() {
        let a = result(fast: 10, slow: 30)
        let b = result(fast: 10.6, slow: 30)
        let difference = TimingDifference(b, comparedTo: a)
        #expect(difference.direction == .notSignificant)
        #expect(difference.words.contains("overlap"))
    }

    @Test func tinyDifferencesDoNotCountHoweverSignificant() {
        let a = result(fast: 100, slow: 300)
        let b = result(fast: 103, slow: 300)
        #expect(TimingDifference(b, comparedTo: a).direction == .notSignificant)
        #expect(TimingDifference(b, comparedTo: a, minimumEffect: 0.01).direction == .higher)
    }

    /// One sample per round; in the rounds listed in `slow` the host slowed everything by 1.7×.
    private func paired(_ cost: Double, slow: Set<Int>, rounds: Int = 50) -> BenchmarkResult {
        var result = LocalDriver.result("S/g/c", median: cost, halfWidth: 0)
        result.samples = (0..<rounds).map { round in
            // A little spread of its own, so that no two ratios are exactly alike.
            let time = cost * (slow.contains(round) ? 1.7 : 1) * (1 + Double(round % 7) / 1000)
            return Sample(iterations: 1, wallNanoseconds: time, round: round)
        }
        return result
    }

    /// Most rounds slow, for both sides alike: the 10th percentiles' intervals reach into the slow
    /// samples and overlap, while the ratio of the samples taken side by side does not move.
    @Test func pairsSeeThroughSlowStretchesThatHideADifferenceUnpaired() throws {
        let slow = Set((0..<50).filter { !$0.isMultiple(of: 8) })
        let nslock = paired(11.5, slow: slow)
        let pthread = paired(10, slow: slow)
        let difference = TimingDifference(nslock, comparedTo: pthread)
        #expect(difference.direction == .higher)
        #expect(difference.pairs == 50)
        let ratio = try #require(difference.ratio)
        #expect(abs(ratio - 1.15) < 0.01)
        let sentence = difference.sentence(nslock, vs: "pthread", pthread)
        #expect(sentence.hasPrefix("1.15× [1.15×–1.15×] over 50 paired rounds vs pthread: significantly slower"))
        #expect(sentence.contains("p10 "))

        func withoutRounds(_ result: BenchmarkResult) -> BenchmarkResult {
            var result = result
            for index in result.samples.indices { result.samples[index].round = nil }
            return result
        }
        let unpaired = TimingDifference(withoutRounds(nslock), comparedTo: withoutRounds(pthread))
        #expect(unpaired.pairs == 0)
        #expect(unpaired.direction == .notSignificant)
        #expect(unpaired.words.contains("10th percentile"))
    }

    @Test func pairedRatiosWithinTheMinimumEffectOrAroundOneAreNotSignificant() {
        let a = paired(10, slow: [])
        #expect(TimingDifference(paired(10.3, slow: []), comparedTo: a).direction == .notSignificant)
        #expect(TimingDifference(paired(10.3, slow: []), comparedTo: a, minimumEffect: 0.01).direction == .higher)
        // Most rounds slower on one side and the rest on the other: the typical ratio is 1.7, but its
        // interval reaches from one kind of round to the other.
        let mixed = paired(10, slow: Set(0..<38))
        let other = paired(10, slow: Set(38..<50))
        let difference = TimingDifference(mixed, comparedTo: other, minimumEffect: 0.01)
        #expect(difference.direction == .notSignificant)
        #expect(difference.words.contains("includes 1"))
        #expect(abs((difference.ratio ?? 0) - 1.7) < 0.01)
    }

    /// Only rounds with exactly one sample of each side pair up, and too few such rounds are
    /// compared unpaired.
    @Test func pairingNeedsOneSampleOfEachSidePerRoundInEnoughRounds() {
        let few = TimingDifference(paired(20, slow: [], rounds: 19), comparedTo: paired(10, slow: [], rounds: 19))
        #expect(few.pairs == 0)
        var fiveARound = paired(20, slow: [])
        for index in fiveARound.samples.indices { fiveARound.samples[index].round = index / 5 }
        let visits = TimingDifference(fiveARound, comparedTo: paired(10, slow: []))
        #expect(visits.pairs == 0)
        #expect(visits.direction == .higher)
        #expect(visits.words.contains("10th percentile"))
        #expect(TimingDifference.pairedLogRatios(fiveARound, paired(10, slow: [])).isEmpty)
    }

    /// A baseline that convoys in some visits and not in others (0.4 or 10 per op, 25× apart) is
    /// beaten or not depending on the run's mix of the two; a difference counts only when the case
    /// was faster (or slower) in three paired rounds of four.
    @Test func aSideThatSwitchesRegimesDecidesOnTheShareOfRoundsEachWasFasterIn() throws {
        let convoys = Set((0..<50).filter { $0 % 3 != 0 })
        func regimes(_ low: Double, _ high: Double) -> BenchmarkResult {
            var result = paired(low, slow: [])
            for index in result.samples.indices where convoys.contains(index) {
                result.samples[index].wallNanoseconds = high * (1 + Double(index % 7) / 1000)
            }
            return result
        }
        let serial = regimes(0.4, 10)
        // Paired, the barrier is faster in the convoy rounds (two thirds), and 15× slower in the rest.
        let barrier = paired(6, slow: [])
        let between = TimingDifference(barrier, comparedTo: serial)
        #expect(between.direction == .notSignificant)
        #expect(between.words.hasPrefix("no consistent difference: the baseline switches between regimes"))
        #expect(between.words.contains("faster in 33 and slower in 17 of 50 paired rounds"))
        let pthread = paired(0.05, slow: [])
        #expect(TimingDifference(pthread, comparedTo: serial).direction == .lower)
        #expect(TimingDifference(pthread, comparedTo: serial).words.hasPrefix("faster whatever the regime"))
        #expect(TimingDifference(serial, comparedTo: pthread).direction == .higher)
        #expect(TimingDifference(paired(20, slow: []), comparedTo: serial).direction == .higher)
        // Host states (1.7×) are not regimes: paired as usual.
        #expect(TimingDifference(paired(11.5, slow: convoys), comparedTo: paired(10, slow: convoys)).pairs == 50)
        #expect(
            TimingDifference(paired(11.5, slow: convoys), comparedTo: paired(10, slow: convoys)).direction == .higher)
    }

    /// The shape of the barrier reader–writer against the serial queue at 50% reads × 2 threads: the
    /// serial queue's convoys form a long tail (0.2–23 ms), which in a process with many of them
    /// reaches past the barrier's fast samples, but the barrier was still slower in nine rounds of
    /// ten. The whole-range comparison called that undecided in one process and slower in the next.
    @Test func aLongConvoyTailDoesNotHideACaseSlowerInNearlyEveryRound() throws {
        let rounds = 100
        func samples(_ time: (Int) -> Double) -> BenchmarkResult {
            var result = LocalDriver.result("S/g/c", median: time(rounds / 2), halfWidth: 0)
            result.samples = (0..<rounds).map { Sample(iterations: 1, wallNanoseconds: time($0), round: $0) }
            return result
        }
        // Round k's serial time spreads log-uniformly from 0.2 to 23 ms (shuffled by a stride
        // coprime to 100); the barrier takes 12–27 ms.
        let serial = samples { 0.2e6 * pow(115, Double($0 * 37 % rounds) / Double(rounds - 1)) }
        let barrier = samples { 12e6 + 15e6 * Double($0 * 53 % rounds) / Double(rounds) }
        let difference = TimingDifference(barrier, comparedTo: serial)
        #expect(difference.direction == .higher)
        #expect(difference.words.hasPrefix("slower whatever the regime: the baseline switches between regimes"))
        #expect(difference.words.contains("of 100 paired rounds (the 25th percentile of the paired ratio"))
        // Unpaired (no rounds recorded), the share of rounds cannot be counted: undecided, and why.
        var unpairedBarrier = barrier
        var unpairedSerial = serial
        for index in 0..<rounds {
            unpairedBarrier.samples[index].round = nil
            unpairedSerial.samples[index].round = nil
        }
        let unpaired = TimingDifference(unpairedBarrier, comparedTo: unpairedSerial)
        #expect(unpaired.direction == .notSignificant)
        #expect(unpaired.words.contains("only 0 rounds paired the two"))
    }

    /// --quick takes fewer samples: the comparison moves up to a quantile that has an interval, and
    /// says which; with too few for any it is not significant, and says that.
    @Test func fewSamplesCompareAHigherQuantileOrNone() {
        let a = result(fast: 10, slow: 30, count: 25)
        let b = result(fast: 20, slow: 40, count: 25)
        let difference = TimingDifference(a, comparedTo: b)
        #expect(difference.result?.probability == 0.15)
        #expect(difference.sentence(a, vs: "b", b).hasPrefix("p15 "))
        let tiny = TimingDifference(result(fast: 10, slow: 30, count: 5), comparedTo: b)
        #expect(tiny.direction == .notSignificant)
        #expect(tiny.words.contains("too few samples (5 and 25)"))
    }
}

@Suite struct GCDJudgeTests {
    private func verdict(_ claimed: ClaimedBenchmark, _ counters: [String: Double]) -> Claim.Verdict {
        var result = LocalDriver.result(claimed.benchmark.path, median: 1, halfWidth: 0.1)
        result.counters = counters
        return claimed.judge(result, [result]).0
    }

    @Test func qosIsJudgedOnRoundsWithASignTest() {
        let qos = qosCases[0]
        func counters(_ ahead: Double, _ behind: Double, rounds: Double) -> [String: Double] {
            [
                "userInitiatedInFirstHalf": 0.6, "userInitiatedItems": 4 * rounds, "rounds": rounds,
                "roundsUserInitiatedAhead": ahead, "roundsBackgroundAhead": behind,
            ]
        }
        #expect(verdict(qos, counters(80, 20, rounds: 120)) == .held)
        // 12 of 20 untied rounds ahead: p ≈ 0.25, no significant preference either way, which does
        // not show that there is none.
        #expect(verdict(qos, counters(12, 8, rounds: 40)) == .inconclusive)
        // .background ahead in significantly more rounds: the claim fails.
        #expect(verdict(qos, counters(20, 80, rounds: 120)) == .didNotHold)
        // 30 of 47 ahead (p ≈ 0.04) decides a finished run at 95% but not a look at 99%.
        #expect(verdict(qos, counters(30, 17, rounds: 60)) == .held)
        #expect(
            DecisionLevel.$current.withValue(DecisionLevel.interim) { verdict(qos, counters(30, 17, rounds: 60)) }
                == .inconclusive)
        #expect(verdict(qos, counters(0, 0, rounds: 30)) == .inconclusive)
        #expect(
            verdict(qos, ["userInitiatedInFirstHalf": 0.8, "userInitiatedItems": 400, "rounds": 100]) == .inconclusive)
    }

    @Test func signTestPValuesAreExactBinomialTails() {
        #expect(abs(signTestPValue(successes: 10, trials: 10) - 1.0 / 1024) < 1e-12)
        #expect(abs(signTestPValue(successes: 1, trials: 2) - 0.75) < 1e-12)
        #expect(abs(signTestPValue(successes: 9, trials: 10) - 11.0 / 1024) < 1e-12)
        #expect(signTestPValue(successes: 0, trials: 10) == 1)
        #expect(signTestPValue(successes: 0, trials: 0) == 1)
    }

    @Test func qosOrderCountsWhichClassWasAheadInEachRound() {
        let order = QoSOrder()
        // Ahead: 2 of 2 user-initiated items in the first half.
        for qos: DispatchQoS.QoSClass in [.userInitiated, .userInitiated, .background, .background] {
            order.finished(qos)
        }
        order.endRound()
        // Tied: 1 of 2 in the first half.
        for qos: DispatchQoS.QoSClass in [.userInitiated, .background, .userInitiated, .background] {
            order.finished(qos)
        }
        order.endRound()
        // Behind: none in the first half.
        for qos: DispatchQoS.QoSClass in [.background, .background, .userInitiated, .userInitiated] {
            order.finished(qos)
        }
        order.endRound()
        let counters = order.counters
        #expect(counters["rounds"] == 3)
        #expect(counters["roundsUserInitiatedAhead"] == 1)
        #expect(counters["roundsBackgroundAhead"] == 1)
        #expect(counters["userInitiatedItems"] == 6)
        #expect(counters["userInitiatedInFirstHalf"] == 0.5)
    }

    @Test func qosOrderRecordsTheNiceValuesOfEachClassWorkers() {
        let order = QoSOrder()
        order.finished(.userInitiated, nice: -2)
        order.finished(.userInitiated, nice: 0)
        order.finished(.background, nice: 10)
        order.finished(.background, nice: nil)
        order.endRound()
        let counters = order.counters
        #expect(counters["userInitiatedNiceMin"] == -2)
        #expect(counters["userInitiatedNiceMax"] == 0)
        #expect(counters["backgroundNiceMin"] == 10 && counters["backgroundNiceMax"] == 10)
        #expect(
            niceEvidence(counters) == "worker threads at nice -2 to 0 (.userInitiated) and 10 (.background)")
        #expect(niceEvidence([:]) == "worker threads at nice unknown (.userInitiated) and unknown (.background)")
    }

    /// The QoS items' work is CPU time: however long the thread is preempted, it has used at least
    /// that much CPU when the spin returns.
    @Test func spinOnCPUUsesThatMuchOfTheThreadsCPUTime() {
        let before = MonotonicClock.threadCPU()
        spinOnCPU(microseconds: 2000)
        #expect(MonotonicClock.threadCPU() - before >= 2_000_000)
        #expect(currentThreadNice() != nil)
    }

    @Test func threadExplosionIsJudgedOnPeakConcurrency() throws {
        let global = try #require(threadExplosionCases.first { $0.benchmark.name == "explosion-global-queue" })
        // The global queue is judged on a typical batch: one high peak is not an explosion.
        #expect(verdict(global, ["medianBatchPeakConcurrentItems": Double(2 * processorCount)]) == .held)
        #expect(
            verdict(global, ["medianBatchPeakConcurrentItems": Double(processorCount), "peakConcurrentItems": 16])
                == .didNotHold)
        #expect(verdict(global, ["peakConcurrentItems": 16]) == .inconclusive)
    }

    /// Fan-outs are compared paired by round like the other GCD cases, on 200 samples (their ratios
    /// spread more); a difference from `DispatchGroup.wait` counts from 10% (`fanOutWaitMinimumEffect`).
    @Test func waitingMechanismsAreComparedWithGroupWaitOnMoreSamples() throws {
        #expect(fanOutCases.allSatisfy { $0.benchmark.scheduling == .everySampleAFreshVisit(sampleFactor: 8) })
        let wait = LocalDriver.result("DispatchBench/gcd/fanout-group-wait", median: 20_000, halfWidth: 100)
        for name in ["fanout-group-notify", "fanout-semaphore"] {
            let claimed = try #require(fanOutCases.first { $0.benchmark.name == name })
            func verdict(median: Double) -> Claim.Verdict {
                let result = LocalDriver.result(claimed.benchmark.path, median: median, halfWidth: 100)
                return claimed.judge(result, [wait, result]).0
            }
            #expect(verdict(median: 20_600) == .inconclusive)
            #expect(verdict(median: 18_400) == .inconclusive)
            #expect(verdict(median: 21_600) == .inconclusive)
            #expect(verdict(median: 17_400) == .didNotHold)
            #expect(verdict(median: 22_600) == .held)
            let wide = LocalDriver.result(claimed.benchmark.path, median: 24_000, halfWidth: 4_000)
            #expect(claimed.judge(wide, [wait, wide]).0 == .inconclusive)
        }
    }

    /// Names keep their spelling after "than" ("NSLock", not "nSLock"); articles are lowercased.
    @Test func lockStatementsSpellTheBaselineAsItIsWritten() throws {
        func statement(_ name: String) throws -> String {
            try #require(lockCases.first { $0.benchmark.name == name }).statement(2)
        }
        #expect(try statement("lock-mutex-r50").contains("Synchronization.Mutex is faster than NSLock at 50% reads"))
        #expect(try statement("lock-actor-r90").contains("An actor is slower than Synchronization.Mutex at 90%"))
        #expect(try statement("lock-concurrent-barrier-r99").contains("is faster than a serial queue's sync at 99%"))
        #expect(try statement("lock-pthread-mutex-r50").contains("faster than a serial queue's sync"))
    }

    @Test func mainQueueHopIsJudgedAgainstTheSerialQueueHop() throws {
        let main = try #require(hopCases.first { $0.benchmark.name == "hop-main-queue-round-trip" })
        let serial = LocalDriver.result("DispatchBench/gcd/hop-serial-round-trip", median: 10_000, halfWidth: 50)
        func verdict(median: Double) -> Claim.Verdict {
            let result = LocalDriver.result(main.benchmark.path, median: median, halfWidth: 50)
            return main.judge(result, [serial, result]).0
        }
        #expect(verdict(median: 10_100) == .held)
        #expect(verdict(median: 8_000) == .held)
        #expect(verdict(median: 14_000) == .didNotHold)
        let alone = LocalDriver.result(main.benchmark.path, median: 10_000, halfWidth: 50)
        #expect(main.judge(alone, [alone]).0 == .inconclusive)
    }
}

@Suite struct ConcurrencyGaugeTests {
    @Test func batchPeaksGiveATypicalBatchBesidesTheHighestPeak() {
        let gauge = ConcurrencyGauge()
        #expect(gauge.medianBatchPeak == nil)
        for width in [2, 2, 5, 2, 3] {
            for _ in 0..<width { gauge.enter() }
            for _ in 0..<width { gauge.leave() }
            gauge.endBatch()
        }
        #expect(gauge.peak == 5)
        #expect(gauge.medianBatchPeak == 2)
    }
}

@Suite struct MainQueueTests {
    @Test func aDrainedMainQueueIsRecognised() throws {
        _ = try DrainedMainQueue()
    }

    @Test func aMainQueueThatDoesNotRunBlocksIsAnErrorNotAHang() throws {
        // Occupy the main queue for a moment: the check must give up with a clear error.
        let release = DispatchSemaphore(value: 0)
        let occupied = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            occupied.signal()
            release.wait()
        }
        occupied.wait()
        defer { release.signal() }
        let error = try #require(throws: DrainedMainQueue.NotDrained.self) {
            try DrainedMainQueue(timeout: .milliseconds(200))
        }
        #expect(error.description.contains("dispatchMain"))
    }
}
