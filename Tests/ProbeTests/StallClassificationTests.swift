import ProbeRecords
import Testing

@testable import Probe

/// How a stalled thread's samples decide its class.
struct StallClassificationTests {
    /// Runnable but given a third of the CPU (other processes took the rest): still the
    /// service's code keeping the thread busy, so CPU-bound, not starved.
    @Test func runnableMostOfTheTimeIsCPUBoundWhateverTheCPUShare() {
        let states = Array(repeating: "R", count: 9) + ["S"]
        #expect(StallBuilder.classify(cpu: 100e6, wall: 300e6, states: states) == .cpuBound)
    }

    @Test func asleepMostOfTheTimeIsBlocked() {
        let states = Array(repeating: "S", count: 8) + ["R", "D"]
        #expect(StallBuilder.classify(cpu: 5e6, wall: 300e6, states: states) == .blocked)
    }

    @Test func withoutSamplesTheCPUTimeDecides() {
        #expect(StallBuilder.classify(cpu: 290e6, wall: 300e6, states: []) == .cpuBound)
        #expect(StallBuilder.classify(cpu: 10e6, wall: 300e6, states: []) == .blocked)
        #expect(StallBuilder.classify(cpu: 120e6, wall: 300e6, states: []) == .unknown)
        #expect(StallBuilder.classify(cpu: nil, wall: 300e6, states: []) == .unknown)
    }

    @Test func neverStarvedForOneThread() {
        for states in [["R"], ["S"], ["D"], ["R", "S"], ["T"], []] {
            #expect(StallBuilder.classify(cpu: 1e6, wall: 300e6, states: states) != .starved)
        }
    }

    /// A Dispatch worker parked for work is not what holds the pool; a task blocked in a
    /// semaphore wait ends in the same wait but with the work item below it.
    @Test func aParkedWorkerIsToldFromATaskWaitingInASemaphore() {
        func stack(_ names: [String]) -> [StackFrame] { names.map { StackFrame(address: 1, symbol: $0) } }
        let parked = stack(["syscall", "_dispatch_sema4_timedwait", "_dispatch_worker_thread", "start_thread"])
        let waiting = stack([
            "syscall", "_dispatch_sema4_timedwait", "_dispatch_semaphore_wait_slow", "app.handler()",
            "swift_job_run", "cprobe_pool_run_job", "_dispatch_continuation_pop", "_dispatch_worker_thread",
        ])
        #expect(PoolWorkerIdle.isParked(parked))
        #expect(!PoolWorkerIdle.isParked(waiting))
        #expect(!PoolWorkerIdle.isParked(stack(["app.main()"])))
    }
}
