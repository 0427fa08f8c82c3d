import Foundation

/// A memory warning: the process's memory cgroup (or the machine) came under memory pressure,
/// close to its limit, or hit it. One JSON object per line in `jsonLinesPath`, `"type":
/// "memory-warning"`.
public struct MemoryWarning: Sendable, Codable, Equatable {
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// Tasks stalled on memory (reclaim, refaults, swap-in) for longer than the PSI trigger's
        /// stall within its window.
        case pressure
        /// The cgroup's usage crossed `nearLimitFraction` of its limit (warned once per crossing).
        case nearLimit = "near-limit"
        /// The kernel counted the cgroup at its limit: memory.events' `high`, `max`, `oom` or
        /// `oom_kill` rose (v1: the failure count or `oom_kill`).
        case limitReached = "limit-reached"
    }

    public var type = "memory-warning"
    /// The memory watch's name.
    public var watch: String
    public var time: Date
    public var reason: Reason
    /// One sentence: what happened, with the figures that say so.
    public var message: String
    /// Memory pressure when the warning was made; nil without PSI.
    public var pressure: PressureStall?
    public var memory: MemorySnapshot
    /// How much each memory.events counter rose since the previous warning (or the start).
    public var eventIncrements: [String: UInt64]
    /// The heap profile for this warning (``MemoryWatchConfiguration/heapProfileDirectory``), or why
    /// none is taken; both nil when none was asked for. The file is written right after the record is
    /// delivered, whole or not at all: a process killed meanwhile leaves none, a failed write is logged.
    public var heapProfile: String?
    public var heapProfileProblem: String?
}

/// The process's memory and its cgroup's at one moment.
public struct MemorySnapshot: Sendable, Codable, Equatable {
    /// "v1" or "v2"; nil without a memory cgroup.
    public var cgroupVersion: String?
    /// The cgroup's directory under /sys/fs/cgroup.
    public var cgroupDirectory: String?
    /// Memory charged to the cgroup, and the tightest limit on it (nil: none), bytes.
    public var usageBytes: UInt64?
    public var limitBytes: UInt64?
    /// This process's resident memory: anonymous (heap, stacks) and file-backed (code, mapped files), bytes.
    public var rssAnonBytes: UInt64?
    public var rssFileBytes: UInt64?
    /// The pressure file read: the cgroup's `memory.pressure` or `/proc/pressure/memory`.
    public var pressureFile: String?

    public init(
        cgroupVersion: String? = nil, cgroupDirectory: String? = nil, usageBytes: UInt64? = nil,
        limitBytes: UInt64? = nil, rssAnonBytes: UInt64? = nil, rssFileBytes: UInt64? = nil,
        pressureFile: String? = nil
    ) {
        self.cgroupVersion = cgroupVersion
        self.cgroupDirectory = cgroupDirectory
        self.usageBytes = usageBytes
        self.limitBytes = limitBytes
        self.rssAnonBytes = rssAnonBytes
        self.rssFileBytes = rssFileBytes
        self.pressureFile = pressureFile
    }

    /// Usage as a share of the limit, when both are known.
    public var usedFraction: Double? {
        guard let usageBytes, let limitBytes, limitBytes > 0 else { return nil }
        return Double(usageBytes) / Double(limitBytes)
    }
}

/// How the previous instance that used the same breadcrumb file ended, found by elimination at the
/// next start (as iOS's "FOOM" method does): it stopped cleanly, or its crash handler saw a fatal
/// signal, or — neither — the memory figures it left say whether memory killed it. One JSON line
/// (`"type": "previous-exit"`), one log line, `probe_previous_exit_total{reason}`.
public struct PreviousExit: Sendable, Codable, Equatable {
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// Its memory watch was stopped: a graceful shutdown.
        case clean
        /// The crash handler recorded a fatal signal (`signal`).
        case crashed
        /// Not clean, no crash seen, and memory evidence: its cgroup's OOM-kill count rose, or its
        /// last figures were near the limit or under pressure (`evidence` says which).
        case killedForMemory = "killed-for-memory"
        /// The machine restarted since (another boot id): whatever the instance was doing, that ended it.
        case machineRestarted = "machine-restarted"
        /// Not clean, no crash seen, no memory evidence: a SIGKILL or SIGTERM from outside, a
        /// crash the handler could not see, or an OOM kill that left no trace here.
        case killedOtherwise = "killed-otherwise"
    }

    /// How sure the verdict is: `certain` for what the instance wrote itself (clean, crashed), the
    /// boot id, or an OOM-kill count that rose; `likely` for memory figures close to the end.
    public enum Confidence: String, Sendable, Codable { case certain, likely, unknown }

    public var type = "previous-exit"
    public var reason: Reason
    public var confidence: Confidence
    /// Sentences that led to the verdict.
    public var evidence: [String]
    public var pid: Int32
    public var started: Date
    /// The instance's last check (every `checkInterval` while it ran).
    public var lastSeen: Date
    public var lastPhase: String?
    /// The fatal signal, for `crashed`.
    public var signal: Int32?
    /// Its memory at the last check.
    public var memory: MemorySnapshot
    /// Its cgroup's OOM kills at its last check, and now.
    public var oomKillsThen: UInt64?
    public var oomKillsNow: UInt64?
    public var lastWarning: Date?
    public var lastWarningReason: String?
    /// The last heap profile it wrote at a memory warning, when the watch has a
    /// ``MemoryWatchConfiguration/heapProfileDirectory``: what held its memory near the end.
    public var heapProfile: String?
}
