import Foundation
import Testing

@testable import Harness

@Suite struct CPUAffinityTests {
    @Test func thisProcessMayRunOnAtLeastOneCPU() {
        let cpus = CPUAffinity.usableCPUs()
        #expect(!cpus.isEmpty)
        #expect(cpus == cpus.sorted())
        #expect(Set(cpus).count == cpus.count)
    }

    @Test func aPinnedThreadMayRunOnlyOnItsCPU() {
        let cpu = CPUAffinity.usableCPUs().last!
        let seen = ThreadResult()
        let thread = Thread {
            let accepted = CPUAffinity.pinCurrentThread(to: cpu)
            seen.set(accepted: accepted, cpus: CPUAffinity.usableCPUs())
        }
        thread.start()
        let (accepted, cpus) = seen.wait()
        #expect(accepted)
        #expect(cpus == [cpu])
        // Only that thread: this one keeps its mask.
        #expect(CPUAffinity.usableCPUs().count >= 1)
    }

    @Test func aCPUOutsideTheSetIsRefused() {
        let seen = ThreadResult()
        Thread { seen.set(accepted: CPUAffinity.pinCurrentThread(to: -1), cpus: CPUAffinity.usableCPUs()) }.start()
        let (accepted, cpus) = seen.wait()
        #expect(!accepted)
        #expect(cpus == CPUAffinity.usableCPUs())
    }
}

/// Hands a result from a helper thread to the test.
private final class ThreadResult: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private var value: (Bool, [Int]) = (false, [])

    func set(accepted: Bool, cpus: [Int]) {
        value = (accepted, cpus)
        ready.signal()
    }

    func wait() -> (Bool, [Int]) {
        ready.wait()
        return value
    }
}
