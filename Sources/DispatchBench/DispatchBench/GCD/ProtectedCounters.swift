import Foundation
import Synchronization

/// A counter shared by threads, protected by one of the mechanisms being compared. A read returns
/// the value; a write increments it (a read-modify-write under the protection).
protocol ProtectedCounter: AnyObject, Sendable {
    func read() -> Int
    func write()
    /// Waits for writes still queued (barrier writes are asynchronous).
    func drain()
}

extension ProtectedCounter {
    func drain() {}
}

final class SerialQueueCounter: ProtectedCounter, @unchecked Sendable {
    private let queue = DispatchQueue(label: "perfkit.dispatchbench.serial-counter")
    private var value = 0
    func read() -> Int { queue.sync { value } }
    func write() { queue.sync { value += 1 } }
}

/// The reader–writer pattern: reads run concurrently with `sync`, writes are `async` barriers.
final class BarrierCounter: ProtectedCounter, @unchecked Sendable {
    private let queue = DispatchQueue(label: "perfkit.dispatchbench.barrier-counter", attributes: .concurrent)
    private var value = 0
    func read() -> Int { queue.sync { value } }
    func write() { queue.async(flags: .barrier) { self.value += 1 } }
    func drain() { queue.sync(flags: .barrier) {} }
}

final class NSLockCounter: ProtectedCounter, @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func read() -> Int { lock.withLock { value } }
    func write() { lock.withLock { value += 1 } }
}

final class PthreadMutexCounter: ProtectedCounter, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value = 0

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func read() -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    func write() {
        pthread_mutex_lock(mutex)
        value += 1
        pthread_mutex_unlock(mutex)
    }
}

@available(macOS 15.0, *)
final class SynchronizationMutexCounter: ProtectedCounter {
    private let value = Mutex(0)
    func read() -> Int { value.withLock { $0 } }
    func write() { value.withLock { $0 += 1 } }
}

actor ActorCounter {
    private var value = 0
    func read() -> Int { value }
    func write() { value += 1 }
}

/// Whether access `index` of thread `thread` is a read, for a `readPercent` mix that is the same
/// for every mechanism.
@inline(__always)
func isRead(_ index: Int, thread: Int, readPercent: Int) -> Bool {
    (index &* 37 &+ thread &* 11) % 100 < readPercent
}
