import CProbe
import CProbeHeap
import CProbeHeapInterposer
import Foundation
import PerfkitPprof
import Probe
import ProbeRecords
import Synchronization

/// Sampled heap profiles of this process, as Go's runtime keeps them: one allocation in every
/// `meanInterval` bytes on average is sampled with its stack and, for a Swift object, its type;
/// its free is matched, so the profile says what is in use as well as what was allocated.
/// ``ProfileServer`` serves it at `/debug/pprof/heap` and `/debug/pprof/allocs` while it runs.
///
/// Linking this product replaces glibc's `malloc` family in the executable (each forwards to
/// glibc's); until ``start(meanInterval:)`` the replacement costs one load and one branch.
public enum HeapProfiler {
    /// Go's default (`runtime.MemProfileRate`), jemalloc's `lg_prof_sample` 19.
    public static let defaultMeanInterval = 512 * 1024

    /// Why the profiler could not start.
    public struct StartError: Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable, Equatable {
            case invalidInterval
            /// The process's `malloc` is not ProbeHeap's (ProbeHeap was not linked into the executable).
            case notInterposed
            case resources
        }

        public var kind: Kind
        public var message: String

        public var description: String { message }
    }

    /// Starts sampling (again, with empty tables) one allocation in every `meanInterval` bytes on
    /// average; 0 stops. Publishes which code keeps frame records first (a few hundred milliseconds
    /// the first time in a process, as for a cpu profile).
    public static func start(meanInterval: Int = defaultMeanInterval) throws(StartError) {
        guard meanInterval >= 0 else {
            throw StartError(kind: .invalidInterval, message: "meanInterval \(meanInterval): must be 0 (off) or more")
        }
        guard meanInterval > 0 else { return stop() }
        guard cprobe_heap_interposed() == 1 else {
            throw StartError(
                kind: .notInterposed,
                message:
                    "heap profiler: this process's malloc is not ProbeHeap's: link the ProbeHeap product into the executable"
            )
        }
        FramePointerCode.publish()
        guard cprobe_heap_start(UInt64(meanInterval)) == 0 else {
            throw StartError(
                kind: .resources, message: "heap profiler: cannot map its tables: \(String(cString: strerror(errno)))")
        }
        HeapProfiles.register(HeapProfileBuilder.shared)
    }

    /// Stops sampling; the server's heap routes answer 404 again.
    public static func stop() {
        cprobe_heap_stop()
        HeapProfiles.register(nil)
    }

    /// The running mean interval in bytes, or nil when stopped.
    public static var meanInterval: Int? {
        let interval = cprobe_heap_interval()
        return interval == 0 ? nil : Int(interval)
    }

    /// The profile now, pprof-encoded and not gzipped (`/debug/pprof/heap` serves it gzipped):
    /// sample types `alloc_objects`, `alloc_space`, `inuse_objects`, `inuse_space`, the last the
    /// default unless `allocations`.
    public static func profile(allocations: Bool = false) -> Data {
        HeapProfileBuilder.shared.heapProfile(allocations: allocations)
    }
}
