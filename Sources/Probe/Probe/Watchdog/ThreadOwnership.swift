import CProbe
import Synchronization

/// The one thread allowed to touch a value that is not `Sendable` by itself, checked at run time in
/// debug builds as swift-nio's `NIOLoopBound` checks its event loop; release builds store and check
/// nothing. The thread that makes it owns it until it lets go (``release()``); the next thread then
/// takes it (``take()``).
struct ThreadOwnership: ~Copyable, Sendable {
    #if DEBUG
        /// The owning thread's id; 0 while let go.
        private let owner = Atomic<Int32>(cprobe_gettid())
    #endif

    init() {}

    /// Traps (debug builds) unless the calling thread owns the value.
    func check(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
            let owner = owner.load(ordering: .acquiring)
            precondition(
                owner == cprobe_gettid(), "touched on thread \(cprobe_gettid()), owned by \(owner) (0: let go)",
                file: file, line: line)
        #endif
    }

    /// The owner lets go: no thread may touch the value until one takes it.
    func release(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
            check(file: file, line: line)
            owner.store(0, ordering: .releasing)
        #endif
    }

    /// The calling thread takes the value; traps (debug builds) unless its owner let go of it.
    func take(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
            let (taken, owner) = owner.compareExchange(
                expected: 0, desired: cprobe_gettid(), ordering: .acquiringAndReleasing)
            precondition(taken, "taken by thread \(cprobe_gettid()) while owned by \(owner)", file: file, line: line)
        #endif
    }

    /// The owning thread's id, nil while let go, and always nil in release builds (for the tests).
    var ownerThread: Int32? {
        #if DEBUG
            let owner = owner.load(ordering: .acquiring)
            return owner == 0 ? nil : owner
        #else
            return nil
        #endif
    }
}
