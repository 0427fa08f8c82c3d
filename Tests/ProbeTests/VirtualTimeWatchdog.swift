import Foundation
import Synchronization

@testable @_spi(Benchmarks) import Probe

/// A watchdog's loop run in virtual time, as swift-nio's `EmbeddedEventLoop` runs an event loop:
/// no thread of its own, no sleeps. `advanceTime(by:)` makes every look the loop's thread (or,
/// while nothing is going on, the resting clock) would have made up to then, in order, at the
/// times it would have made them. The watched target is a ``Heartbeat`` set busy and idle at
/// virtual times, or (`pinged`) a queue-like ``ScriptedPinger`` that runs each ping at once unless
/// it is busy; samples come from a ``ScriptedThreadReader``.
final class VirtualTimeWatchdog {
    let clock = VirtualWatchdogClock()
    let reader: ScriptedThreadReader
    let heartbeat = Heartbeat.currentThread()
    /// The pinged target, when there is one.
    let pinger: ScriptedPinger?
    let watchdog: Watchdog
    private let loop: WatchdogLoop
    /// When the resting clock looks next while the loop is parked (nil while it is not: the loop is
    /// then this thread's, and lent to the resting clock while parked, as its own thread does), and
    /// when its wait for that look began.
    private var restingLookAt: UInt64?
    private var restingWaitSince: UInt64 = 0
    /// The resting clock's own view of pauses, between its looks.
    private var restingPauses: PauseDetector
    /// Looks made so far, by the loop's thread and by the resting clock.
    private(set) var looks = 0
    private(set) var restingLooks = 0

    /// `observer` (a scripted pool's) stands for the heartbeat's when given.
    init(configuration: WatchdogConfiguration, pinged: Bool = false, observer: (any TargetObserver)? = nil) {
        reader = ScriptedThreadReader(clock: clock)
        pinger = pinged ? ScriptedPinger(clock: clock) : nil
        // A pinged watchdog's target only names it: its pings go to the scripted pinger.
        watchdog = Watchdog(
            watching: pinged ? .queue(DispatchQueue(label: "virtual")) : .heartbeat(heartbeat),
            configuration: configuration)
        loop = WatchdogLoop(
            watchdog: watchdog, slot: -1, stopRequest: DispatchSemaphore(value: 0), clock: clock, reader: reader,
            observer: observer
                ?? pinger.map {
                    PingObserver(pinger: $0, configuration: configuration, intervals: WatchdogIntervals(configuration))
                })
        loop.begin()
        restingPauses = PauseDetector(
            monotonic: clock.monotonicNanoseconds(), boot: clock.bootTimeNanoseconds(),
            runQueueWait: clock.runQueueWaitNanoseconds())
    }

    /// The virtual CLOCK_MONOTONIC now.
    var now: UInt64 { clock.monotonicNanoseconds() }

    /// The watched target starts working now.
    func busy() {
        reader.working = true
        if let pinger { pinger.setBusy(true) } else { heartbeat.busy(at: now) }
    }

    /// The watched target waits for work from now (a pinged one runs the ping it holds).
    func idle() {
        reader.working = false
        if let pinger { pinger.setBusy(false) } else { heartbeat.idle(at: now) }
    }

    /// Busy for `duration`, then idle.
    func work(for duration: Duration) {
        busy()
        advanceTime(by: duration)
        idle()
    }

    /// Moves time on by `duration`, making every look due meanwhile.
    func advanceTime(by duration: Duration) {
        let target = now + duration.nanoseconds
        var steps = 0
        while true {
            steps += 1
            precondition(steps < 1_000_000, "the loop does not move on in virtual time")
            if restingLookAt != nil || loop.isResting {
                if restingLookAt == nil {
                    // The loop parks now: the resting clock starts its wait (and its view of pauses).
                    loop.ownership.release()
                    restingPauses = PauseDetector(
                        monotonic: now, boot: clock.bootTimeNanoseconds(), runQueueWait: clock.runQueueWaitNanoseconds()
                    )
                    restingWaitSince = now
                }
                let look = restingLookAt ?? now + loop.restingTick(now: now)
                guard look <= target else {
                    restingLookAt = look
                    break
                }
                clock.set(max(look, now))
                restingLooks += 1
                let pause = restingPauses.look(
                    monotonic: now, boot: clock.bootTimeNanoseconds(), runQueueWait: clock.runQueueWaitNanoseconds(),
                    due: look, since: restingWaitSince)
                if loop.needsItsThread(now: now, pause: pause) {
                    restingLookAt = nil
                    loop.ownership.take()
                    looks += 1
                    loop.resumeFromRest()
                } else {
                    restingWaitSince = now
                    restingLookAt = now + loop.restingTick(now: now)
                }
            } else {
                let wake = loop.nextWake
                guard wake <= target else { break }
                // A wake-up already past (the process was paused) is made at once, late.
                clock.set(max(wake, now))
                looks += 1
                loop.look(scheduledFor: wake)
            }
        }
        clock.set(target)
    }

    /// Busy for `before`, then a wait of the watchdog's thread for a CPU for `wait` (the target's
    /// too, unless `targetRuns`), busy `after` more, then idle.
    func work(for before: Duration, waitingForCPU wait: Duration, then after: Duration, targetRuns: Bool = false) {
        busy()
        advanceTime(by: before)
        if targetRuns { waitForCPUWhileTheTargetRuns(for: wait) } else { waitForCPU(for: wait) }
        advanceTime(by: after)
        idle()
    }

    /// The whole process is stopped for `duration` (SIGSTOP, a debugger): both clocks move on and
    /// no look is made meanwhile; the next one is late.
    func pauseProcess(for duration: Duration) {
        clock.advance(monotonic: duration.nanoseconds, boot: duration.nanoseconds, targetOffCPU: duration.nanoseconds)
    }

    /// Every CPU is busy for `duration`: the process's threads are runnable but wait for one, so no
    /// look is made meanwhile and the next one is late, by time its thread spent waiting for a CPU.
    func waitForCPU(for duration: Duration) {
        clock.advance(
            monotonic: duration.nanoseconds, boot: duration.nanoseconds, runQueueWait: duration.nanoseconds,
            targetOffCPU: duration.nanoseconds)
    }

    /// The watchdog's thread waits for a CPU for `duration` while the target's runs on one (a spinning
    /// event loop on one core of two, the other taken): the next look is late, the target ran.
    func waitForCPUWhileTheTargetRuns(for duration: Duration) {
        clock.advance(monotonic: duration.nanoseconds, boot: duration.nanoseconds, runQueueWait: duration.nanoseconds)
    }

    /// The machine is suspended for `duration`: CLOCK_BOOTTIME and the wall clock move on,
    /// CLOCK_MONOTONIC does not.
    func suspendMachine(for duration: Duration) {
        clock.advance(monotonic: 0, boot: duration.nanoseconds)
    }

    /// `Watchdog.stop()`'s last look: a stall going on is reported as ongoing.
    func stop() {
        if restingLookAt != nil {
            // Stopped while parked: the loop's thread takes the loop back from the resting clock.
            restingLookAt = nil
            loop.ownership.take()
        }
        loop.end()
    }

    /// The thread that owns the loop now, nil while it is parked (debug builds; always nil else).
    var loopOwner: Int32? { loop.ownership.ownerThread }
}

/// A pinged target in virtual time, like a serial queue: a ping posted while it is idle runs at
/// once; one posted while it is busy runs when its work ends.
final class ScriptedPinger: Pinger {
    private struct State {
        var busy = false
        var pending: UInt64?
        var arrivedGeneration: UInt64 = 0
        var arrivedAt: UInt64 = 0
    }
    private let clock: VirtualWatchdogClock
    private let state = Mutex(State())

    init(clock: VirtualWatchdogClock) { self.clock = clock }

    func post(generation: UInt64) {
        state.withLock { state in
            if state.busy {
                state.pending = generation
            } else {
                state.arrivedGeneration = generation
                state.arrivedAt = clock.monotonicNanoseconds()
            }
        }
    }

    func setBusy(_ busy: Bool) {
        state.withLock { state in
            state.busy = busy
            if !busy, let pending = state.pending {
                state.arrivedGeneration = pending
                state.arrivedAt = clock.monotonicNanoseconds()
                state.pending = nil
            }
        }
    }

    var arrivedGeneration: UInt64 { state.withLock { $0.arrivedGeneration } }
    var arrivedAt: UInt64 { state.withLock { $0.arrivedAt } }
    /// The queue's drain thread (the scripted reader answers for any thread).
    var threadID: Int32? { 4242 }
}

/// Clocks that move only when told: CLOCK_MONOTONIC from an arbitrary non-zero start, CLOCK_BOOTTIME
/// ahead of it by the time the machine was "suspended", the wall clock following CLOCK_BOOTTIME.
final class VirtualWatchdogClock: WatchdogClock {
    private struct Now {
        var monotonic: UInt64 = 1_000_000_000_000
        var boot: UInt64 = 1_005_000_000_000
        var runQueueWait: UInt64 = 7_000_000
        /// The time the target's thread could not run (the process paused, every CPU taken).
        var targetOffCPU: UInt64 = 0
    }
    private let state = Mutex(Now())
    private let origin = Date(timeIntervalSince1970: 1_800_000_000)

    func monotonicNanoseconds() -> UInt64 { state.withLock { $0.monotonic } }
    func bootTimeNanoseconds() -> UInt64 { state.withLock { $0.boot } }
    func runQueueWaitNanoseconds() -> UInt64? { state.withLock { $0.runQueueWait } }
    func date() -> Date { origin.addingTimeInterval(Double(bootTimeNanoseconds()) / 1e9) }

    /// Sets CLOCK_MONOTONIC (never backwards), CLOCK_BOOTTIME moving with it.
    func set(_ monotonic: UInt64) {
        state.withLock {
            precondition(monotonic >= $0.monotonic, "virtual time does not go back")
            $0.boot += monotonic - $0.monotonic
            $0.monotonic = monotonic
        }
    }

    func advance(monotonic: UInt64, boot: UInt64, runQueueWait: UInt64 = 0, targetOffCPU: UInt64 = 0) {
        state.withLock {
            $0.monotonic += monotonic
            $0.boot += boot
            $0.runQueueWait += runQueueWait
            $0.targetOffCPU += targetOffCPU
        }
    }

    /// The time the target's thread could not run so far (``advance(monotonic:boot:runQueueWait:targetOffCPU:)``).
    var targetOffCPUNanoseconds: UInt64 { state.withLock { $0.targetOffCPU } }
}

/// The stalled thread as a script: every sample sees `stack` in `state` (R: running; S: asleep in
/// `waitingIn`), and the thread's CPU time grows with virtual time while it works in state R (not
/// while the process is paused or it waits for a CPU).
final class ScriptedThreadReader: StalledThreadReader {
    private let clock: VirtualWatchdogClock
    /// Program counters, innermost first: by default a real stack of this test binary
    /// (``stackOfAVirtualStall()``), so that symbolication and culprits work on it.
    var stack: [UInt] = stackOfAVirtualStall()
    var state = "R" {
        willSet { _ = cpuNanoseconds(of: 0) }
    }
    var waitingIn: String?
    /// Samples that get no answer (a thread blocking the signal).
    var answers = true
    private var cpu: Int64 = 0
    /// The target is busy (``VirtualTimeWatchdog/busy()``): idle, its thread waits for work, off its CPU.
    var working = false {
        willSet { _ = cpuNanoseconds(of: 0) }
    }
    private var cpuReadAt: UInt64?
    private var offCPUAtRead: UInt64 = 0
    private(set) var samplesTaken = 0

    init(clock: VirtualWatchdogClock) { self.clock = clock }

    func cpuNanoseconds(of tid: Int32) -> Int64? {
        let (now, offCPU) = (clock.monotonicNanoseconds(), clock.targetOffCPUNanoseconds)
        if let last = cpuReadAt, state == "R", working {
            cpu += Int64((now - last).saturatingSubtract(offCPU - offCPUAtRead))
        }
        (cpuReadAt, offCPUAtRead) = (now, offCPU)
        return cpu
    }

    func isAsleep(_ tid: Int32) -> Bool { state == "S" || state == "D" }

    func sample(_ tid: Int32, into samples: inout ThreadSamples, since: UInt64, now: UInt64) {
        samplesTaken += 1
        samples.add(
            answers ? (state == "R" ? .stack(stack) : .syscall(waitingIn ?? "nanosleep")) : nil, state: state,
            waitingIn: state == "R" ? nil : waitingIn, at: now)
    }
}

/// Return addresses of this test binary, innermost first, for the scripted samples: the stack as
/// captured here, from this function out (the capture's own frames left out, so that this function
/// is the culprit a stall is counted under).
@inline(never)
func stackOfAVirtualStall() -> [UInt] {
    let stack = captureCurrentStack()
    let frames = Symbolicator.shared.symbolicate(stack: stack)
    let own = frames.firstIndex { $0.symbol?.contains("stackOfAVirtualStall") == true } ?? 0
    return Array(stack[own...])
}
