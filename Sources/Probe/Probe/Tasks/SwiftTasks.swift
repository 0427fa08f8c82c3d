import CProbe
import Foundation

/// The Swift tasks of this process at one moment, for the thread dump: each task's state and, for a
/// task that is not running, where it will go on (its await site) and its logical callers. Tasks with
/// the same state and chain are one group with a count, as Go's `goroutine?debug=1` groups goroutines.
struct TaskDump: Sendable {
    enum State: String, Sendable {
        case running, enqueued, suspended
        case notStarted = "not started"
    }

    struct Group: Sendable {
        var state: State
        /// What a suspended task waits on: `continuation`, `task`, `task group`, `executor`.
        var waitingOn: String?
        /// Ascending; every task of the group.
        var ids: [UInt64]
        /// Innermost first, each tagged as an async frame: the await site, then the callers.
        var stack: [UInt]
        /// The thread a running task was seen on by the dump's sample of it.
        var thread: Int32? = nil
    }

    /// Largest groups first.
    var groups: [Group]
    /// Why tasks are not listed, or only partly; nil when every task found is listed.
    var note: String?
    /// Memory read to find them, and how long the listing took.
    var scannedBytes: UInt64 = 0
    var nanoseconds: UInt64 = 0

    var count: Int { groups.reduce(0) { $0 + $1.ids.count } }

    /// `1003 tasks: 2 running, 1 enqueued, 1000 suspended`.
    var summary: String {
        let states: [State] = [.running, .enqueued, .suspended, .notStarted]
        let parts = states.compactMap { state -> String? in
            let n = groups.filter { $0.state == state }.reduce(0) { $0 + $1.ids.count }
            return n == 0 ? nil : "\(n) \(state.rawValue)"
        }
        let scan =
            scannedBytes == 0
            ? "" : String(format: " (%.1f MB read in %.1f ms)", Double(scannedBytes) / 1e6, Double(nanoseconds) / 1e6)
        return "\(count) task\(count == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
            + scan
    }
}

/// Finds the process's Swift tasks. Swift 6.3's runtime keeps no list of them on Linux and has no
/// hook at task creation, so the writable memory is scanned for objects whose first word is the
/// runtime's task metadata (`_swift_concurrency_debug_asyncTaskMetadata`, what swift-inspect matches
/// on Darwin), read through `process_vm_readv` on this process: memory gone meanwhile is an error
/// answer, not a crash. Only the task layout the runtime calls version 1 (Swift 6.1 to 6.3) is read.
enum SwiftTasks {
    /// The runtime layout this reader knows (`_swift_concurrency_debug_internal_layout_version`).
    static let knownLayout: UInt32 = 1
    /// Most tasks listed; a process with more says how many were left out.
    static let capacity = 100_000

    /// The runtime's debug symbols, or why they cannot be used.
    static let runtime: Result<Runtime, TaskListUnavailable> = Runtime.find()

    struct Runtime: Sendable {
        var taskMetadata: UInt
        var notStartedAdapters: Set<UInt>
        var waitAdapters: Set<UInt>

        static func find() -> Result<Runtime, TaskListUnavailable> {
            guard let handle = dlopen(nil, RTLD_NOW) else { return .failure(.init("dlopen failed")) }
            func symbol(_ name: String) -> UnsafeMutableRawPointer? {
                dlsym(handle, "_swift_concurrency_debug_" + name)
            }
            guard let version = symbol("internal_layout_version"), let metadata = symbol("asyncTaskMetadata") else {
                return .failure(
                    .init("the Swift runtime exports no task layout (no Swift concurrency, or a static stdlib)"))
            }
            if case let problem = cprobe_read_memory_errno(), problem != 0 {
                let reason = String(cString: strerror(problem))
                return .failure(.init("process_vm_readv fails here (\(reason): qemu-user, or a seccomp filter)"))
            }
            let layout = version.load(as: UInt32.self)
            guard layout == SwiftTasks.knownLayout else { return .failure(.init("runtime layout \(layout) unknown")) }
            func pointer(_ name: String) -> UInt? { symbol(name).map { $0.load(as: UInt.self) } }
            return .success(
                Runtime(
                    taskMetadata: metadata.load(as: UInt.self),
                    notStartedAdapters: Set(["non_future_adapter", "future_adapter"].compactMap(pointer)),
                    waitAdapters: Set(
                        ["task_wait_throwing_resume_adapter", "task_future_wait_resume_adapter"].compactMap(pointer))))
        }
    }

    /// One task as listed: its identity and where it waits, and the group it belongs to.
    struct ListedTask: Sendable {
        var address: UInt
        var id: UInt64
        /// Where it goes on and with which context: the same pair at two looks is needed for it not to
        /// have moved in between, but not enough (a loop at one await keeps its context).
        var resumeFunction: UInt
        var resumeContext: UInt
        /// When asked for: how often Probe's global-executor hook saw it enqueued, and what its
        /// contexts hold (up to 32, ``cprobe_context_fingerprint``). A task that ran between two
        /// looks and suspended at the same await again has the same contexts; the count moved if it
        /// went on on the global executor, the contents changed if its loop keeps a changing value
        /// in a frame (on another executor the contents are all there is).
        var fingerprint: UInt64 = 0
        var group: GroupKey
    }

    struct GroupKey: Hashable, Sendable {
        var state: TaskDump.State
        var waitingOn: String?
        var stack: [UInt]
        var thread: Int32? = nil
    }

    /// Every live task, or why they cannot be listed. Reads all writable anonymous memory that is
    /// resident: see docs/probe-in-a-server.md for what it costs.
    static func list(fingerprints: Bool = false) -> (
        tasks: [ListedTask], note: String?, scannedBytes: UInt64, nanoseconds: UInt64
    ) {
        let runtime: Runtime
        switch self.runtime {
        case .success(let found): runtime = found
        case .failure(let reason): return ([], "tasks unavailable: \(reason.message)", 0, 0)
        }
        let start = cprobe_monotonic_ns()
        let ranges = AsyncChains.refreshContextMemory()
        // Room for a few thousand first (a service's usual count); a second scan when there were more.
        // Mapped for the scan alone, never malloc's: its 192 KiB for 4,096 tasks, freed, raised
        // glibc's mmap threshold for the whole process (docs/probe-in-a-server.md, "Soak").
        var room = min(4096, capacity)
        while true {
            let size = room * MemoryLayout<cprobe_task>.stride
            guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                memory != MAP_FAILED
            else { return ([], "tasks unavailable: no memory for the scan", 0, 0) }
            defer { munmap(memory, size) }
            let tasks = memory.bindMemory(to: cprobe_task.self, capacity: room)
            var scanned: UInt64 = 0
            let found = Int(
                cprobe_find_tasks(ranges, Int32(ranges.count / 2), runtime.taskMetadata, tasks, Int32(room), &scanned))
            guard found >= 0 else { return ([], "tasks unavailable: no memory for the scan", 0, 0) }
            if found > room && room < capacity {
                room = min(found + found / 8, capacity)
                continue
            }
            var seen = Set<UInt64>()  // a stale copy of a task's fields elsewhere in memory is not a task
            var listed: [ListedTask] = []
            for task in UnsafeBufferPointer(start: tasks, count: min(found, room)) where seen.insert(task.id).inserted {
                listed.append(
                    ListedTask(
                        address: task.address, id: task.id, resumeFunction: task.resume_function,
                        resumeContext: task.resume_context,
                        fingerprint: fingerprints && task.status & UInt32(CPROBE_TASK_RUNNING) == 0
                            ? cprobe_context_fingerprint(task.resume_context, 32, 128)
                                ^ UInt64(cprobe_task_enqueues(task.address)) &* 0x9E37_79B9_7F4A_7C15 : 0,
                        group: key(of: task, runtime: runtime)))
            }
            let note = found > capacity ? "\(found - capacity) more tasks not listed (at most \(capacity))" : nil
            return (listed, note, scanned, cprobe_monotonic_ns() &- start)
        }
    }

    /// Every live task, grouped by state and chain, largest groups first; a running task found in
    /// `runningOn` (task address → thread id, from the threads' samples) is an entry of its own.
    static func dump(runningOn: [UInt: Int32] = [:]) -> TaskDump {
        let (tasks, note, scanned, nanoseconds) = list()
        return TaskDump(
            groups: groups(of: tasks, runningOn: runningOn), note: note, scannedBytes: scanned,
            nanoseconds: nanoseconds)
    }

    static func groups(of tasks: [ListedTask], runningOn: [UInt: Int32] = [:]) -> [TaskDump.Group] {
        var groups: [GroupKey: [UInt64]] = [:]
        for task in tasks {
            var key = task.group
            if key.state == .running { key.thread = runningOn[task.address] }
            groups[key, default: []].append(task.id)
        }
        return groups.map { key, ids in
            TaskDump.Group(
                state: key.state, waitingOn: key.waitingOn, ids: ids.sorted(), stack: key.stack, thread: key.thread)
        }.sorted { ($0.ids.count, $1.ids.first ?? 0) > ($1.ids.count, $0.ids.first ?? 0) }
    }

    private static func key(of task: cprobe_task, runtime: Runtime) -> GroupKey {
        let tag = cprobe_async_frame_tag()
        if task.status & UInt32(CPROBE_TASK_RUNNING) != 0 { return GroupKey(state: .running, stack: []) }
        let state: TaskDump.State = task.status & UInt32(CPROBE_TASK_ENQUEUED) != 0 ? .enqueued : .suspended
        let context = task.resume_context
        if runtime.notStartedAdapters.contains(task.resume_function) {
            // The task's own entry point is kept just before its first context (AsyncContextPrefix).
            var entry: UInt = 0
            _ = cprobe_read_memory(context &- 24, &entry, 8)
            return GroupKey(state: .notStarted, stack: entry == 0 ? [] : [entry | tag])
        }
        var stack: [UInt] = []
        // Waiting on another task's value: the adapter resumes the awaiting function, the context's caller.
        if !(runtime.waitAdapters.contains(task.resume_function) && task.dependency != 0) {
            stack.append(task.resume_function | tag)
        }
        var chain = [UInt](repeating: 0, count: 64)
        var ended: Int32 = 0
        let depth = chain.withUnsafeMutableBufferPointer {
            Int(cprobe_walk_async_chain(context, $0.baseAddress, Int32($0.count), &ended))
        }
        // On a continuation the context is the continuation's, whose caller is the await site again.
        let callers = chain.prefix(depth).drop { stack.count == 1 && $0 == task.resume_function }
        stack += callers.map { $0 | tag }
        return GroupKey(state: state, waitingOn: waitingOn(task), stack: stack)
    }

    /// The kind of the task's dependency record (TaskDependencyStatusRecord, kind at +0x20).
    private static func waitingOn(_ task: cprobe_task) -> String? {
        guard task.dependency != 0 else { return nil }
        var kind: UInt8 = 0
        guard cprobe_read_memory(task.dependency &+ 0x20, &kind, 1) == 0 else { return nil }
        switch kind {
        case 1: return "task"
        case 2: return "continuation"
        case 3: return "task group"
        case 4: return "executor"
        default: return nil
        }
    }
}

/// Why the tasks cannot be listed, said in the dump instead of them.
struct TaskListUnavailable: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// One listing of the process's tasks, for the benchmarks: how many it found.
@_spi(Benchmarks) public func listSwiftTasksForBenchmarks() -> Int { SwiftTasks.dump().count }
