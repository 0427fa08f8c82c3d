import CProbe
import Foundation
import Synchronization
import Testing

@testable import Probe

/// A watchdog loop's state belongs to one thread at a time: the loop's own, lent to the resting
/// clock while parked. Checked in debug builds only, so tested there.
#if DEBUG
    struct ThreadOwnershipTests {
        @Test func theMakerOwnsItUntilItLetsGoAndTheNextThreadTakesIt() {
            let ownership = ThreadOwnership()
            #expect(ownership.ownerThread == cprobe_gettid())
            ownership.check()
            ownership.release()
            #expect(ownership.ownerThread == nil)
            let other = Mutex<(taker: Int32, owner: Int32?)>((0, nil))
            let done = DispatchSemaphore(value: 0)
            // Across threads by reference: the loop holds its ownership as a stored property.
            let holder = OwnershipHolder(ownership)
            Thread {
                holder.ownership.take()
                other.withLock { $0 = (cprobe_gettid(), holder.ownership.ownerThread) }
                holder.ownership.release()
                done.signal()
            }.start()
            done.wait()
            let (taker, owner) = other.withLock { $0 }
            #expect(owner == taker && taker != cprobe_gettid())
            holder.ownership.take()
            #expect(holder.ownership.ownerThread == cprobe_gettid())
        }

        @Test func touchingAValueLetGoTraps() async {
            await #expect(processExitsWith: .failure) {
                let ownership = ThreadOwnership()
                ownership.release()
                ownership.check()
            }
        }

        /// In virtual time the test's thread is the loop's: it lends the loop while it is parked and
        /// takes it back to time a busy period.
        @Test func aParkedLoopIsLentAndTakenBackToTimeABusyPeriod() {
            var configuration = WatchdogConfiguration(name: "owned", threshold: .milliseconds(100))
            configuration.metrics = false
            let virtual = VirtualTimeWatchdog(configuration: configuration)
            #expect(virtual.loopOwner == cprobe_gettid())
            virtual.advanceTime(by: .seconds(1))
            #expect(virtual.loopOwner == nil, "parked: lent to the resting clock")
            virtual.busy()
            virtual.advanceTime(by: .milliseconds(150))
            #expect(virtual.loopOwner == cprobe_gettid())
            virtual.idle()
            virtual.stop()
        }

        /// A target that never answers its pings keeps the loop awake: its own thread owns it.
        @Test func aRunningLoopIsOwnedByItsOwnThread() throws {
            var configuration = WatchdogConfiguration(name: "owned-running", threshold: .seconds(2))
            configuration.metrics = false
            let watchdog = Watchdog(
                watching: .executor(name: "never-runs-\(UUID())", submit: { _ in }), configuration: configuration)
            try watchdog.start()
            defer { watchdog.stop() }
            let running = try #require(watchdog.runningLoop)
            #expect(running.thread != cprobe_gettid())
            let deadline = Date().addingTimeInterval(10)
            while running.loop.ownership.ownerThread != running.thread, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            #expect(running.loop.ownership.ownerThread == running.thread)
        }

        /// An idle target's loop parks: lent to the resting clock, never owned by another thread than
        /// its own or a Probe thread (the clock, during a look).
        @Test func anIdleLoopIsLentToTheRestingClock() throws {
            let heartbeat = Heartbeat.currentThread()
            var configuration = WatchdogConfiguration(name: "owned-idle", threshold: .milliseconds(100))
            configuration.metrics = false
            let watchdog = Watchdog(watching: .heartbeat(heartbeat), configuration: configuration)
            heartbeat.idle()
            try watchdog.start()
            defer { watchdog.stop() }
            let running = try #require(watchdog.runningLoop)
            let deadline = Date().addingTimeInterval(10)
            while running.loop.ownership.ownerThread != nil, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            #expect(running.loop.ownership.ownerThread == nil, "parked")
            var owners: Set<Int32> = []
            for _ in 0..<200 {
                if let owner = running.loop.ownership.ownerThread { owners.insert(owner) }
                Thread.sleep(forTimeInterval: 0.001)
            }
            let probeThreads = ProbeThreads.all
            #expect(probeThreads.contains(running.thread))
            #expect(owners.isSubset(of: probeThreads), "only the loop's thread or the resting clock's")
        }
    }

    private final class OwnershipHolder: Sendable {
        let ownership: ThreadOwnership
        init(_ ownership: consuming ThreadOwnership) { self.ownership = ownership }
    }
#endif
