import CProbe
import Foundation
import Synchronization

/// One thread of Swift concurrency's cooperative pool.
struct PoolThread: Equatable, Sendable {
    var id: Int32
    /// Its name as the kernel keeps it (`/proc/self/task/<tid>/comm`, at most 15 bytes).
    var name: String
}

/// Finds the threads of Swift concurrency's global concurrent executor (the cooperative pool)
/// by name, from `/proc/self/task/*/comm`, and by id where the runtime leaves them unnamed.
///
/// On Linux the global executor runs a job on libdispatch's global root queue of the job's
/// priority, and each root queue has its own worker threads, named after the end of the queue's
/// label (the kernel keeps 15 bytes): default priority runs on "com.apple.root.default-qos",
/// whose threads are called "oot.default-qos" (seen with Swift 6.3 on Debian 12). Those threads
/// also run `DispatchQueue.global()` work of that QoS, which starves with them. The name is
/// learned from the pings too (the thread that runs one reads its own name), so a runtime that
/// names them differently is still followed once a ping has run. Debian's swiftlang 6.2.3 leaves
/// them with the process's name, which the main thread and other threads share: there a pool thread
/// is one a ping or a job ran on (``learnCurrentThread()``), by id, while it keeps its name.
enum CooperativePoolThreads {
    /// Worker threads of "com.apple.root.default-qos", where default-priority tasks run.
    static let defaultPriorityName = "oot.default-qos"

    /// The pool's live threads: those named as this platform's pool threads or as a thread a ping ran
    /// on, and those met running pool work whose name says nothing (still carrying the name they had).
    static func list() -> [PoolThread] {
        let (names, unnamed) = seen.withLock { ($0.names, $0.unnamed) }
        var threads = list(named: names)
        var gone: [Int32] = []
        for (tid, name) in unnamed.sorted(by: { $0.key < $1.key }) where !threads.contains(where: { $0.id == tid }) {
            if self.name(of: tid) == name { threads.append(PoolThread(id: tid, name: name)) } else { gone.append(tid) }
        }
        if !gone.isEmpty { seen.withLock { state in for tid in gone { state.unnamed[tid] = nil } } }
        return threads.sorted { $0.id < $1.id }
    }

    /// Whether `tid`, named `name`, is a pool thread by its name or as met running pool work.
    static func contains(tid: Int32, name: String) -> Bool {
        seen.withLock { $0.names.contains(name) || $0.unnamed[tid] == name }
    }

    /// Called on a thread that runs pool work (a ping, a preparing task): a distinctive name is
    /// learned as the pool's; a name the process's other threads may share, with the thread's id.
    static func learnCurrentThread() {
        guard let name = currentThreadName() else { return }
        let tid = StackSampler.currentThreadID
        seen.withLock { state in
            if name != processName && !name.isEmpty {
                state.names.insert(name)
            } else if state.unnamed.count < Int(CPROBE_MAX_POOL_THREADS) {
                state.unnamed[tid] = name
            }
        }
    }

    /// What pool work was met on: names, and the ids of threads whose name is the process's.
    private static let seen = Mutex<(names: Set<String>, unnamed: [Int32: String])>(([defaultPriorityName], [:]))

    /// The main thread's name (the executable's, 15 bytes), which threads nobody named inherit.
    private static let processName: String? = ThreadInfo.read("/proc/self/comm")?.trimmingCharacters(
        in: .newlines)

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
