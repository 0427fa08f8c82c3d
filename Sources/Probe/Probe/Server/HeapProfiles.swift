import Foundation
import Synchronization

/// What ``ProfileServer`` asks a heap profiler for (`/debug/pprof/heap` and `/allocs`). The
/// sampler replaces malloc, so it lives in its own product (ProbeHeap) that registers here when it
/// starts: a service that does not link it keeps glibc's malloc untouched.
package protocol HeapProfileSource: Sendable {
    /// The heap profile, pprof-encoded (not gzipped): its default sample type `inuse_space`, or
    /// `alloc_space` when `allocations`.
    func heapProfile(allocations: Bool) -> Data
}

package enum HeapProfiles {
    private static let current = Mutex<(any HeapProfileSource)?>(nil)

    /// The running heap profiler, if any.
    package static var running: (any HeapProfileSource)? { current.withLock { $0 } }

    package static func register(_ source: (any HeapProfileSource)?) { current.withLock { $0 = source } }

    /// The 404's reason when none runs.
    package static let notRunning =
        "no heap profiler runs in this process (link the ProbeHeap product and call HeapProfiler.start())"
}
