import Synchronization

/// A spinning barrier that lets `count` threads begin together: threads woken by a semaphore start
/// tens of microseconds to a millisecond apart, and "two threads contending" then measured one thread
/// twice. Spinning, so that the last arrival releases the others at once, not after another wake-up.
final class StartLine: Sendable {
    let count: Int
    private let arrived = Atomic<Int>(0)

    init(count: Int) { self.count = count }

    /// Waits (spinning) until `count` threads have arrived since the last `reset`.
    func arrive() {
        arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < count {}
    }

    /// Ready for the next race. Only when no thread is between `arrive` and its return.
    func reset() { arrived.store(0, ordering: .releasing) }
}
