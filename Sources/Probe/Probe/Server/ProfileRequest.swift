import Foundation

/// One whole-process profile to take: for how long, how often each thread is sampled, and which
/// threads count (``Mode``).
public struct ProfileRequest: Sendable, Equatable {
    /// What a sample stands for.
    public enum Mode: String, Sendable, CaseIterable {
        /// Threads running or runnable when sampled; a sample's weight is the CPU time since the last.
        case cpu
        /// Every thread, off-CPU ones with their system call or wait as the leaf; weight = the interval.
        case wall
    }

    /// The kinds of thread a profile can be limited to (the `thread_kind` label).
    public enum ThreadKind: String, Sendable, CaseIterable {
        /// SwiftNIO's event-loop threads (`NIO-ELT-…`, the singleton group's `NIO-SGLTN-…`).
        case eventLoop = "event-loop"
        /// The Swift cooperative pool's threads and libdispatch's other root-queue workers.
        case pool
        case other
    }

    public var duration: Duration
    /// Samples per second per thread; 100 as Go's profiler, 19 or 97 for fleets that avoid lockstep.
    public var rate: Int
    public var mode: Mode
    /// Only threads of these kinds are sampled; nil samples every thread but Probe's own.
    public var threadKinds: Set<ThreadKind>?
    /// Only threads whose name (`comm`, at most 15 bytes) starts with one of these are sampled; nil:
    /// any name. With ``threadKinds`` too, a thread must pass both.
    public var threadNames: [String]?

    public init(
        duration: Duration, rate: Int = 100, mode: Mode = .cpu, threadKinds: Set<ThreadKind>? = nil,
        threadNames: [String]? = nil
    ) {
        self.duration = duration
        self.rate = rate
        self.mode = mode
        self.threadKinds = threadKinds
        self.threadNames = threadNames
    }

    /// Whether thread `tid`, named `name`, is one this profile samples.
    func selects(threadNamed name: String, tid: Int32 = 0) -> Bool {
        if let threadKinds, !threadKinds.contains(ProfileSamples.threadKind(ofThreadNamed: name, tid: tid)) {
            return false
        }
        if let threadNames, !threadNames.contains(where: { name.hasPrefix($0) }) { return false }
        return true
    }

    /// The rates Probe samples at: a 1 kHz ceiling keeps a sample's ~12 µs under 1.2% of a thread.
    public static let rates: ClosedRange<Int> = 1...1000
    /// The longest profile a request may ask for.
    public static let longestDuration: Duration = .seconds(300)
}

/// What a ``ProfileServer`` serves from: ``ProcessProfiler``, or a fake in the server's tests.
package protocol ProfileSource: Sendable {
    /// The profile as pprof's protobuf (not compressed); nil when `isCancelled` turned true first
    /// (the client went away). Throws when sampling cannot start (the signal is taken, say).
    func profile(_ request: ProfileRequest, isCancelled: @escaping @Sendable () -> Bool) throws -> Data?
    /// Every thread's current stack in Go's `goroutine?debug=2` layout: a `thread <tid> [<name>,
    /// <state>]:` line, then one frame a line, then a blank line.
    func threadDumpText() -> String
    /// The same stacks as a pprof profile (Go's `goroutine?debug=0`).
    func threadDumpProfile() -> Data
}
