import Foundation
import Synchronization
import Testing

@testable import DispatchBench

@Suite struct StartLineTests {
    @Test func noThreadLeavesBeforeTheLastArrives() {
        let line = StartLine(count: 2)
        for _ in 0..<2 {
            line.reset()
            let left = Flag()
            let done = DispatchSemaphore(value: 0)
            Thread {
                line.arrive()
                left.set()
                done.signal()
            }.start()
            // Time for the other thread to arrive and, were the line broken, to leave.
            usleep(50_000)
            #expect(!left.isSet)
            line.arrive()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(left.isSet)
        }
    }
}

private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
