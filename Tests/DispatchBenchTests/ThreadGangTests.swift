import Foundation
import Harness
import Testing

@testable import DispatchBench

@Suite struct ThreadGangTests {
    @Test func everyThreadRunsTheWorkOnce() {
        let gang = ThreadGang(count: 3)
        defer { gang.stop() }
        let seen = Recorded()
        gang.run { index in seen.add(index) }
        #expect(seen.values.sorted() == [0, 1, 2])
    }

    /// Two threads on a machine with two CPUs or more: each on a CPU of its own.
    @Test(.enabled(if: CPUAffinity.usableCPUs().count >= 2))
    func aTwoThreadGangRunsOnTwoDifferentCPUs() {
        let gang = ThreadGang(count: 2)
        defer { gang.stop() }
        let masks = Recorded()
        gang.run { _ in
            let cpus = CPUAffinity.usableCPUs()
            masks.add(cpus.count == 1 ? cpus[0] : -1)
        }
        #expect(gang.isPinned)
        #expect(!masks.values.contains(-1))
        #expect(Set(masks.values).count == 2)
    }

    @Test func aOneThreadGangIsNotPinned() {
        let gang = ThreadGang(count: 1)
        defer { gang.stop() }
        gang.run { _ in }
        #expect(!gang.isPinned)
    }
}

private final class Recorded: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func add(_ value: Int) { lock.withLock { list.append(value) } }
    var values: [Int] { lock.withLock { list } }
}
