import Foundation
import Harness
import PerfReport

/// Accesses per benchmark operation. An operation is a batch, not one access, so that handing
/// work to the threads (once per timed run) stays negligible even when the runner picks few
/// iterations on a loaded machine.
let lockBatch = 1000

/// Read percentages and thread counts the lock benchmarks run at.
let lockReadPercents = [50, 90, 99]
/// One thread: what each mechanism costs uncontended. Two: one contending thread per core; with more
/// threads than cores the time is the scheduler's slicing and lock convoys, not the mechanism
/// (docs/dispatchbench-findings.md#why-the-10th-percentile-and-what-two-threads-needed).
let lockThreadCounts = [1, 2]

/// Batches per race when several threads contend: a sample runs consecutive races of this many
/// batches, each begun by all threads together, so that it averages the two patterns a contended lock
/// settles into for a whole race; a race's wake-up costs about 1% of it
/// (docs/dispatchbench-findings.md#why-the-10th-percentile-and-what-two-threads-needed).
let lockRaceBatches = 100

/// In the order they are measured in, each next to what its claim compares it with (see `claim`),
/// so that the two are a visit apart in every round and their samples pair up (`TimingDifference`).
enum LockMechanism: String, CaseIterable, Sendable {
    case concurrentBarrier = "concurrent-barrier"
    case serialQueue = "serial-queue"
    case pthreadMutex = "pthread-mutex"
    case nslock
    case mutex
    case actor

    var title: String {
        switch self {
        case .serialQueue: "A serial queue's sync"
        case .concurrentBarrier: "A concurrent queue with barrier writes (reader–writer)"
        case .nslock: "NSLock"
        case .pthreadMutex: "pthread_mutex"
        case .mutex: "Synchronization.Mutex"
        case .actor: "An actor"
        }
    }

    /// The title after "than": the article lowercased, names ("NSLock", "Synchronization.Mutex") as they are.
    var titleInSentence: String {
        title.hasPrefix("A ") || title.hasPrefix("An ") ? "a" + title.dropFirst() : title
    }

    /// The claim each mechanism is tested on: faster or slower than another mechanism, same mix.
    var claim: (baseline: LockMechanism, faster: Bool, reason: String) {
        switch self {
        case .serialQueue: (.nslock, false, "a queue does more work per access than a lock")
        case .concurrentBarrier: (.serialQueue, true, "reads run in parallel")
        case .nslock: (.pthreadMutex, false, "NSLock wraps a pthread_mutex")
        case .pthreadMutex: (.serialQueue, true, "no queue machinery")
        case .mutex: (.nslock, true, "it is a futex word with no object around it")
        case .actor: (.mutex, false, "every access is an async hop to the actor's executor")
        }
    }

    func makeCounter() -> any ProtectedCounter {
        switch self {
        case .serialQueue: SerialQueueCounter()
        case .concurrentBarrier: BarrierCounter()
        case .nslock: NSLockCounter()
        case .pthreadMutex: PthreadMutexCounter()
        case .mutex, .actor:
            if #available(macOS 15.0, *) { SynchronizationMutexCounter() } else { NSLockCounter() }
        }
    }
}

/// `iterations` × `lockBatch` accesses split over the threads, `readPercent`% of them reads.
func contend(
    _ mechanism: LockMechanism, gang: ThreadGang, readPercent: Int, iterations: Int, counter: any ProtectedCounter,
    actor: ActorCounter, tasks: Int
) {
    let threads = mechanism == .actor ? tasks : gang.count
    let perThread = max(1, iterations * lockBatch / threads)
    if mechanism == .actor {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<threads {
                    group.addTask {
                        var sum = 0
                        for i in 0..<perThread {
                            if isRead(i, thread: thread, readPercent: readPercent) {
                                sum &+= await actor.read()
                            } else {
                                await actor.write()
                            }
                        }
                        blackHole(sum)
                    }
                }
            }
            done.signal()
        }
        done.wait()
        return
    }
    // One thread has no patterns to average, and one race keeps its sample free of wake-ups.
    let races = threads > 1 ? max(1, iterations / lockRaceBatches) : 1
    for race in 0..<races {
        // The accesses split as evenly as they go; every race has the same read mix.
        let share = perThread / races + (race < perThread % races ? 1 : 0)
        gang.run { thread in
            var sum = 0
            for i in 0..<share {
                if isRead(i, thread: thread, readPercent: readPercent) {
                    sum &+= counter.read()
                } else {
                    counter.write()
                }
            }
            blackHole(sum)
        }
    }
    counter.drain()
}

private func lockName(_ mechanism: LockMechanism, _ readPercent: Int) -> String {
    "lock-\(mechanism.rawValue)-r\(readPercent)"
}

/// Read mix by read mix, so that compared mechanisms (same mix) are neighbours in each round.
let lockCases: [ClaimedBenchmark] = lockReadPercents.flatMap { readPercent in
    LockMechanism.allCases.map { mechanism in
        let claim = mechanism.claim
        let name = lockName(mechanism, readPercent)
        return ClaimedBenchmark(
            "DispatchBench/gcd/\(name)",
            "\(mechanism.title) is \(claim.faster ? "faster" : "slower") than \(claim.baseline.titleInSentence) at \(readPercent)% reads (\(claim.reason)); times are per \(lockBatch) accesses.",
            parameters: lockThreadCounts, throughput: .items(lockBatch), thresholdPercent: 15,
            scheduling: .lockComparison,
            make: { parameter in
                // Actor accesses run as tasks on the cooperative pool; the gang is only for the others.
                (
                    mechanism.makeCounter(), ActorCounter(),
                    ThreadGang(count: mechanism == .actor ? 0 : parameter ?? 2), parameter ?? 2
                )
            },
            body: { subject, n in
                contend(
                    mechanism, gang: subject.2, readPercent: readPercent, iterations: n, counter: subject.0,
                    actor: subject.1, tasks: subject.3)
            },
            counters: { subject in ["threads": Double(subject.3), "readPercent": Double(readPercent)] },
            teardown: { subject in subject.2.stop() },
            comparison: compared(
                to: lockName(claim.baseline, readPercent), faster: claim.faster,
                note: { result, all in
                    guard mechanism == .concurrentBarrier else { return "" }
                    return barrierSummary(all)
                }),
            // Contending threads (or tasks) time the mechanism only when each has a CPU.
            cpusNeeded: { parameter in parameter ?? 2 })
    }
}

/// "the barrier reader–writer beat the serial queue at: 99% reads × 2 threads; …" across the run.
private func barrierSummary(_ all: [BenchmarkResult]) -> String {
    var wins: [String] = []
    var total = 0
    for readPercent in lockReadPercents {
        for threads in lockThreadCounts {
            guard
                let barrier = all.first(where: {
                    $0.name == lockName(.concurrentBarrier, readPercent) && $0.parameter == threads
                }),
                let serial = all.first(where: {
                    $0.name == lockName(.serialQueue, readPercent) && $0.parameter == threads
                })
            else { continue }
            total += 1
            if TimingDifference(barrier, comparedTo: serial).direction == .lower {
                wins.append("\(readPercent)% reads × \(threads) threads")
            }
        }
    }
    guard total > 0 else { return "" }
    return "; across this run the barrier reader–writer beat the serial queue "
        + (wins.isEmpty ? "nowhere" : "at " + wins.joined(separator: ", ")) + " on \(processorCount) cores"
}

/// A timing claim: `result` significantly faster (or slower) than the result named `baseline` in
/// the same group with the same parameter, by at least `minimumEffect` of the baseline's time.
struct TimingComparison: Sendable {
    var baseline: String
    var judge: ClaimedBenchmark.Judge
}

func compared(
    to baselineName: String, faster: Bool, minimumEffect: Double = TimingDifference.minimumEffect,
    note: @escaping @Sendable (BenchmarkResult, [BenchmarkResult]) -> String = { _, _ in "" }
) -> TimingComparison {
    TimingComparison(baseline: baselineName) { result, all in
        guard
            let baseline = all.first(where: {
                $0.group == result.group && $0.name == baselineName && $0.parameter == result.parameter
            })
        else {
            return (.inconclusive, "median \(Describe.median(result)); \(baselineName) was not run, so no comparison")
        }
        let difference = TimingDifference(result, comparedTo: baseline, minimumEffect: minimumEffect)
        let claimed: TimingDifference.Direction = faster ? .lower : .higher
        let evidence = difference.sentence(result, vs: baselineName, baseline) + note(result, all)
        switch difference.direction {
        case claimed: return (.held, evidence)
        case .notSignificant: return (.inconclusive, evidence)
        default: return (.didNotHold, evidence)
        }
    }
}
