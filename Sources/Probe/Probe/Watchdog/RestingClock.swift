import CProbe
import Dispatch
import Synchronization

/// One thread that looks at every resting watchdog's target, so that watchdogs with nothing to
/// watch cost one wake-up per look in all, not one each (a timed wake-up is the bulk of watching at
/// rest: docs/probe-in-a-server.md#the-resting-clock). A watchdog with nothing to time parks here and
/// lends its loop to this thread, which asks it the cheap questions (`WatchdogLoop.needsItsThread`)
/// every resting interval (the shortest among them; see `RestingLookSchedule`) and wakes its thread
/// the moment there is something to time or sample.
final class RestingClock: Sendable {
    static let shared = RestingClock()

    private struct State {
        var parked: [ObjectIdentifier: WatchdogLoop] = [:]
        var started = false
    }

    private let state = Mutex(State())
    /// Signalled when a watchdog parks, so a shorter resting tick takes effect at once.
    private let changed = DispatchSemaphore(value: 0)

    /// Hands `loop`'s looks to this thread until `loop.needsItsThread` says otherwise (then the
    /// loop's `resume()` is called) or the loop takes them back with ``unpark(_:)``.
    func park(_ loop: WatchdogLoop) {
        let start = state.withLock { state -> Bool in
            state.parked[ObjectIdentifier(loop)] = loop
            defer { state.started = true }
            return !state.started
        }
        if start {
            ProbeThreads.start(name: "probe-clock") { [self] in run() }
        } else {
            changed.signal()
        }
    }

    /// Takes `loop`'s looks back. Waits for a look in progress to finish, so once this returns the
    /// clock does not touch the loop.
    func unpark(_ loop: WatchdogLoop) {
        _ = state.withLock { $0.parked.removeValue(forKey: ObjectIdentifier(loop)) }
    }

    private func run() {
        let clock = SystemWatchdogClock()
        var pauses = PauseDetector(
            monotonic: clock.monotonicNanoseconds(), boot: clock.bootTimeNanoseconds(),
            runQueueWait: clock.runQueueWaitNanoseconds())
        while true {
            let start = clock.monotonicNanoseconds()
            let tick = state.withLock { state in
                state.parked.values.map { $0.restingTick(now: start) }.min()
            }
            guard let tick else {
                changed.wait()  // nothing parked: no wake-up at all until a watchdog parks
                pauses = PauseDetector(
                    monotonic: clock.monotonicNanoseconds(), boot: clock.bootTimeNanoseconds(),
                    runQueueWait: clock.runQueueWaitNanoseconds())
                continue
            }
            if changed.wait(timeout: .now() + .nanoseconds(Int(tick))) == .success { continue }
            let now = clock.monotonicNanoseconds()
            // Each loop applies its own tolerance to it.
            let pause = pauses.look(
                monotonic: now, boot: clock.bootTimeNanoseconds(), runQueueWait: clock.runQueueWaitNanoseconds(),
                due: start + tick, since: start)
            let resumed = state.withLock { state -> [WatchdogLoop] in
                // Looked at under the lock: a loop that unparks meanwhile waits for its look to end.
                let due = state.parked.values.filter { $0.needsItsThread(now: now, pause: pause) }
                for loop in due { state.parked.removeValue(forKey: ObjectIdentifier(loop)) }
                return due
            }
            for loop in resumed { loop.resume() }
        }
    }
}
