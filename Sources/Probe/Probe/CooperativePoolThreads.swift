import CProbe
import Foundation

/// One thread of Swift concurrency's cooperative pool.
struct PoolThread: Equatable, Sendable {
    var id: Int32
    /// Its name as the kernel keeps it (`/proc/self/task/<tid>/comm`, at most 15 bytes).
    var name: String
}

/// Finds the threads of Swift concurrency's global concurrent executor (the cooperative pool)
/// by name, from `/proc/self/task/*/comm`.
///
/// On Linux the global executor runs a job on libdispatch's global root queue of the job's
/// priority, and each root queue has its own worker threads, named after the end of the queue's
/// label (the kernel keeps 15 bytes): default priority runs on "com.apple.root.default-qos",
/// whose threads are called "oot.default-qos" (seen with Swift 6.3 on Debian 12). Those threads
/// also run `DispatchQueue.global()` work of that QoS, which starves with them. The name is
/// learned from the pings too (the thread that runs one reads its own name), so a runtime that
/// names them differently is still followed once a ping has run.
enum CooperativePoolThreads {
    /// Worker threads of "com.apple.root.default-qos", where default-priority tasks run.
    static let defaultPriorityName = "oot.default-qos"

    /// Every live thread of this process whose name is one of `names`, by thread id.
    static func list(named names: Set<String>) -> [PoolThread] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return [] }
        return entries.compactMap(Int32.init).sorted().compactMap { tid in
            guard let name = name(of: tid), names.contains(name) else { return nil }
            return PoolThread(id: tid, name: name)
        }
    }

    /// The thread's name, or nil when it is gone.
    static func name(of tid: Int32) -> String? {
        ThreadInfo.read("/proc/self/task/\(tid)/comm")?.trimmingCharacters(in: .newlines)
    }

    /// The calling thread's name.
    static func currentThreadName() -> String? {
        ThreadInfo.read("/proc/thread-self/comm")?.trimmingCharacters(in: .newlines)
    }
}
