import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command on a thread of its own while the main thread calls `dispatchMain()`, the way a
/// Dispatch-based service runs: blocks sent to `DispatchQueue.main` then run, so a benchmark can
/// measure a hop to the main queue (`DispatchBench/gcd/hop-main-queue-round-trip`) instead of
/// waiting forever for a main thread that is busy measuring.
enum MainQueueHost {
    /// Runs `body` on the command thread and ends the process with status 0 when it returns;
    /// `body` ends the process itself on errors.
    static func run(_ body: @escaping @Sendable () -> Void) -> Never {
        let thread = Thread {
            body()
            exit(0)
        }
        thread.name = "perfkit-command"
        // The main thread's default, so deep benchmark bodies behave as they would on it.
        thread.stackSize = 8 << 20
        thread.start()
        dispatchMain()
    }
}
