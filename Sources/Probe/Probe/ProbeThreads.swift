import CProbe
import Foundation
import Synchronization

/// Probe's own threads: each names itself from inside (Foundation on Linux ignores a
/// `Thread.name` set before `start()`, so a thread started from a pool thread would otherwise
/// keep that thread's name, `oot.default-qos`, and pass for one), and each is remembered, so no
/// stall record lists a Probe thread among the service's threads or blames it.
package enum ProbeThreads {
    private static let running = Mutex<Set<Int32>>([])

    /// Starts a thread that names itself `name` (at most 15 bytes are kept: `probe-wd-3`) and
    /// runs `body`; it counts as Probe's own until `body` returns.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let tid = cprobe_gettid()
            _ = running.withLock { $0.insert(tid) }
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
}
