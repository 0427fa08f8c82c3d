import Dispatch
import Foundation
import Synchronization
import Testing

@testable @_spi(Benchmarks) import Probe

struct QueuePingerTests {
    /// The thread sampled for a stalled serial queue is the one draining it right now, read from
    /// libdispatch's queue state once a ping has confirmed the layout; nobody while it is idle.
    @Test func serialQueueStallIsAttributedToTheThreadDrainingIt() throws {
        let queue = DispatchQueue(label: "probe-test-drain-owner")
        let pinger = QueuePinger(queue: queue, isMain: false, signal: WatchdogConfiguration.defaultSignal)
        pinger.post(generation: 1)
        while pinger.arrivedGeneration < 1 { usleep(1000) }
        #expect(pinger.readsDrainOwner)
        queue.sync {}  // the drain that ran the ping is over
        Thread.sleep(forTimeInterval: 0.02)
        #expect(pinger.threadID == nil)

        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let worker = Mutex<Int32>(0)
        queue.async {
            worker.withLock { $0 = StackSampler.currentThreadID }
            running.signal()
            release.wait()
        }
        running.wait()
        #expect(pinger.threadID == worker.withLock { $0 })
        release.signal()
        queue.sync {}
    }
}
