import Foundation

/// One stall of a watched thread, as the Probe watchdog saw it.
public struct StallRecord: Codable, Sendable, Equatable {
    public enum Classification: String, Codable, Sendable {
        /// Running, CPU time close to wall time.
        case cpuBound = "cpu-bound"
        /// Sleeping or in disk wait, CPU time close to zero.
        case blocked
        /// Work waiting for a thread: the thread was runnable but given little CPU, a queue waited
        /// for a worker, or every thread of Swift concurrency's cooperative pool was taken (then
        /// ``StallRecord/threads`` holds each pool thread's stack).
        case starved
        /// Swift tasks suspended at the same await for longer than the threshold (``ParkedTasks``):
        /// requests that never finish though no thread is busy. No thread, no samples.
        case parked
        case unknown
    }

    /// The watchdog's name (e.g. "main" or "event-loop-0").
    public var watchdog: String
    public var threadID: Int32
    public var start: Date
    public var durationNanoseconds: Double
    /// True when the stall was still going on when the report was taken.
    public var ongoing: Bool
    public var thresholdNanoseconds: Double
    public var threadCPUNanoseconds: Double?
    public var classification: Classification
    /// Thread state at each sample: "R", "S", "D", … as in /proc/<pid>/task/<tid>/stat.
    public var threadStates: [String]
    public var sampleCount: Int
    /// Samples that got no answer from the signal handler in time.
    public var unansweredSamples: Int
    /// Aggregated samples, root first: the basis of a flame graph.
    public var callTree: CallTreeNode?
    /// The most frequent stack, innermost frame first.
    public var topStack: [StackFrame]
    /// Stalls whose most frequent stacks have the same innermost frames of the program's own
    /// code (not of the C library or the Swift runtime) share a group key; a stack with no such
    /// frame is keyed by its innermost frames.
    public var groupKey: String
    /// Every thread sampled when a stall involves several (a starvation of the cooperative
    /// pool: each pool thread with its own most frequent stack); nil for a one-thread stall.
    /// `threadID`, `callTree` and `topStack` then describe the threads together: `threadID` is
    /// a thread whose own stack is the most frequent one.
    public var threads: [ThreadStack]?
    /// How much of the stall its profile covers, from the first sample to the last: less than the
    /// duration when the stall outlasted `maxSamplesPerStall` samples (then sampling stopped while
    /// the stall went on being timed). Nil when nothing was sampled.
    public var sampledNanoseconds: Double?
    /// For a blocked stall, the system call most of its samples found the thread waiting in
    /// ("futex", "clock_nanosleep", "read", …), as `/proc/self/task/<tid>/syscall` names it by number.
    public var waitingIn: String?
    /// Where the stalled thread's CPU went on its way into the stall and during it, from the flight
    /// recorder (nil without one, or when it holds no sample of the thread in that window).
    public var before: StallLeadUp?
    /// Why the stacks end at the running async function instead of following its async callers:
    /// "unavailable (no frame records: MODULE)" when the program's async code was built with frame
    /// pointers omitted. Nil when chains are followed (or the program has no async code).
    public var asyncCallers: String?
    /// For a `parked` record: the tasks parked at its stack (`topStack`, the await site first).
    public var tasks: ParkedTasks?
    /// Why the stall has none of its own samples, when it has none: it ended before the watchdog
    /// looked at it again, and was timed from the target's own stamps (a pool job's begin and end).
    public var unsampled: String?

    public init(
        watchdog: String, threadID: Int32, start: Date, durationNanoseconds: Double, ongoing: Bool,
        thresholdNanoseconds: Double, threadCPUNanoseconds: Double?, classification: Classification,
        threadStates: [String], sampleCount: Int, unansweredSamples: Int, callTree: CallTreeNode?,
        topStack: [StackFrame], groupKey: String, threads: [ThreadStack]? = nil, sampledNanoseconds: Double? = nil,
        waitingIn: String? = nil, before: StallLeadUp? = nil
    ) {
        self.watchdog = watchdog
        self.threadID = threadID
        self.start = start
        self.durationNanoseconds = durationNanoseconds
        self.ongoing = ongoing
        self.thresholdNanoseconds = thresholdNanoseconds
        self.threadCPUNanoseconds = threadCPUNanoseconds
        self.classification = classification
        self.threadStates = threadStates
        self.sampleCount = sampleCount
        self.unansweredSamples = unansweredSamples
        self.callTree = callTree
        self.topStack = topStack
        self.groupKey = groupKey
        self.threads = threads
        self.sampledNanoseconds = sampledNanoseconds
        self.waitingIn = waitingIn
        self.before = before
    }
}

/// Swift tasks suspended at one await site, with the same logical callers, for at least a `parked`
/// record's duration: seen there, with the same async context, at every look since.
public struct ParkedTasks: Codable, Sendable, Equatable {
    public var count: Int
    /// The first 100 task ids, ascending.
    public var ids: [UInt64]
    /// What they wait on: `continuation`, `task`, `task group`, `executor`; nil when not said.
    public var waitingOn: String?

    public init(count: Int, ids: [UInt64], waitingOn: String?) {
        self.count = count
        self.ids = ids
        self.waitingOn = waitingOn
    }
}

/// A stalled thread's CPU samples from a flight recorder, from some seconds before the stall began
/// until it was recorded: where the thread's CPU went as it walked into the stall (the stall's own
/// samples start a threshold late). CPU samples only: time it spent blocked is not in them.
public struct StallLeadUp: Codable, Sendable, Equatable {
    /// The window, in ns relative to the stall's start: `from` is negative (before it), `to` the
    /// record's time.
    public var fromNanoseconds: Double
    public var toNanoseconds: Double
    /// The recorder's samples a second of a thread's CPU time.
    public var rate: Int
    public var sampleCount: Int
    /// The samples, root first.
    public var callTree: CallTreeNode?
    /// The most frequent stack, innermost frame first.
    public var topStack: [StackFrame]

    public init(
        fromNanoseconds: Double, toNanoseconds: Double, rate: Int, sampleCount: Int, callTree: CallTreeNode?,
        topStack: [StackFrame]
    ) {
        self.fromNanoseconds = fromNanoseconds
        self.toNanoseconds = toNanoseconds
        self.rate = rate
        self.sampleCount = sampleCount
        self.callTree = callTree
        self.topStack = topStack
    }
}

/// A resolved stack frame. `module`, `buildID` and `moduleOffset` let a stack be symbolicated
/// again offline (`perfkit symbolicate`).
public struct StackFrame: Codable, Sendable, Equatable, Hashable {
    public var address: UInt64
    /// Demangled name, or nil when no symbol covers the address.
    public var symbol: String?
    public var symbolOffset: UInt64?
    public var module: String?
    public var buildID: String?
    public var moduleOffset: UInt64?
    public var file: String?
    public var line: Int?
    /// True for a logical caller read from Swift's async context chain (an `[async]` frame, as
    /// Swift's backtracer marks it): `address` is the resume function's entry, not a return
    /// address. Absent for the thread's own frames.
    public var async: Bool?

    public init(
        address: UInt64, symbol: String? = nil, symbolOffset: UInt64? = nil, module: String? = nil,
        buildID: String? = nil, moduleOffset: UInt64? = nil, file: String? = nil, line: Int? = nil,
        async: Bool? = nil
    ) {
        self.async = async
        self.address = address
        self.symbol = symbol
        self.symbolOffset = symbolOffset
        self.module = module
        self.buildID = buildID
        self.moduleOffset = moduleOffset
        self.file = file
        self.line = line
    }
}

extension StackFrame {
    /// The function this frame is in, as stalls merge and show frames: the demangled symbol, else
    /// `module+0xoffset` (the module's file name), else the address.
    public var functionName: String {
        if let symbol, !symbol.isEmpty { return symbol }
        if let module, let moduleOffset {
            let name = module.split(separator: "/").last.map(String.init) ?? module
            return "\(name)+0x\(String(moduleOffset, radix: 16))"
        }
        return "0x" + String(address, radix: 16)
    }
}

/// A node of an aggregated call tree: how many samples passed through this frame.
public struct CallTreeNode: Codable, Sendable, Equatable {
    public var frame: StackFrame?
    public var count: Int
    public var children: [CallTreeNode]

    public init(frame: StackFrame?, count: Int, children: [CallTreeNode]) {
        self.frame = frame
        self.count = count
        self.children = children
    }
}
