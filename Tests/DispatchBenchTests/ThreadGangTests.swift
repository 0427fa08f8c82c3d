import Foundation
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
}

private final class Recorded: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func add(_ value: Int) { lock.withLock { list.append(value) } }
    var values: [Int] { lock.withLock { list } }
}
