import ProbeRecords

/// Whether a stack is a Dispatch worker thread parked waiting for work: a thread of the pool's
/// name that holds nothing, which a starvation record must not blame.
///
/// A parked worker sits in `_dispatch_worker_thread` → `_dispatch_sema4_timedwait` (libdispatch's
/// idle wait), with no work item on its stack; a worker running work has
/// `_dispatch_root_queue_drain` / `_dispatch_client_callout` (and, for Swift concurrency,
/// `swift_job_run`) between the two. A task blocked in `DispatchSemaphore.wait()` also ends in
/// `_dispatch_sema4_timedwait`, but with those frames below it, so it is not mistaken for idle.
enum PoolWorkerIdle {
    static func isParked(_ stack: [StackFrame]) -> Bool {
        let names = stack.compactMap(\.symbol)
        guard names.contains(where: { $0.hasPrefix("_dispatch_worker_thread") }) else { return false }
        return !names.contains { name in workMarkers.contains { name.hasPrefix($0) } }
    }

    private static let workMarkers = [
        "_dispatch_root_queue_drain", "_dispatch_client_callout", "_dispatch_continuation_pop",
        "_dispatch_queue_override_invoke", "_dispatch_lane_", "_dispatch_async_redirect_invoke", "swift_job_run",
        "swift::runJob",
    ]
}
