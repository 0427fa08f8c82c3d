import CProbe
import Foundation
import Synchronization

/// Probe's own threads: each names itself from inside (Foundation on Linux ignores a
/// `Thread.name` set before `start()`, so a thread started from a pool thread would otherwise
/// keep that thread's name, `oot.default-qos`, and pass for one), and each is remembered, so no
/// stall record lists a Probe thread among the service's threads or blames it.
package enum ProbeThreads {
    private static let running = Mutex<Set<Int32>>([])
    /// Threads started and not yet in `running`: a thread listed in `/proc` meanwhile may be one.
    private static let starting = Atomic<Int>(0)

    /// Starts a thread that names itself `name` (at most 15 bytes are kept: `probe-wd-3`) and
    /// runs `body`; it counts as Probe's own until `body` returns.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        starting.add(1, ordering: .sequentiallyConsistent)
        let thread = Thread {
            let tid = cprobe_gettid()
            _ = running.withLock { $0.insert(tid) }
            starting.subtract(1, ordering: .sequentiallyConsistent)
            _ = cprobe_set_thread_name(name)
            body()
            _ = running.withLock { $0.remove(tid) }
        }
        thread.start()
    }

    /// True when `tid` is one of Probe's threads.
    static func contains(_ tid: Int32) -> Bool { running.withLock { $0.contains(tid) } }

    /// Probe's threads now alive.
    static var all: Set<Int32> { running.withLock { $0 } }

    /// Probe's threads now alive, or nil while one has started but not counted itself yet: then a
    /// thread just listed in `/proc` may be Probe's, and a sampler decides on it at its next look.
    /// (A cpu profile counted the frame-pointer classifier, started with it, as a service thread.)
    static var allKnown: Set<Int32>? {
        guard starting.load(ordering: .sequentiallyConsistent) == 0 else { return nil }
        return all
    }
}
