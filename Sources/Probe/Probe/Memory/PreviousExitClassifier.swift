import CProbe
import Foundation

/// Reads how the previous instance ended from the breadcrumb it left, by elimination: what it wrote
/// itself first (a clean stop, a fatal signal), then the machine (another boot), then memory
/// (its cgroup's OOM-kill count, then its last figures), and otherwise "killed otherwise".
enum PreviousExitClassifier {
    /// How recent a warning before the last check counts as "under pressure at the end".
    static let recentWarning: UInt64 = 5_000_000_000
    /// PSI "some" avg10 at the last check at or above this is pressure at the end (percent).
    static let pressureAvg10: Double = 10

    static func classify(
        _ crumb: cprobe_breadcrumb, bootID: String?, oomKillsNow: UInt64?, nearLimitFraction: Double
    ) -> PreviousExit {
        let version = crumb.cgroup_version == 1 ? "v1" : crumb.cgroup_version == 2 ? "v2" : nil
        let directory = Breadcrumb.text(crumb.cgroup_directory)
        let memory = MemorySnapshot(
            cgroupVersion: version, cgroupDirectory: version == nil ? nil : directory,
            usageBytes: version == nil ? nil : crumb.cgroup_usage_bytes,
            limitBytes: crumb.cgroup_limit_bytes == 0 ? nil : crumb.cgroup_limit_bytes,
            rssAnonBytes: crumb.rss_anon_bytes, rssFileBytes: crumb.rss_file_bytes, pressureFile: nil)
        let oomThen = crumb.cgroup_oom_kills == UInt64.max ? nil : crumb.cgroup_oom_kills
        let phase = Breadcrumb.text(crumb.last_phase)
        let warningReason = Breadcrumb.text(crumb.last_warning_reason)
        var exit = PreviousExit(
            reason: .killedOtherwise, confidence: .unknown, evidence: [], pid: crumb.pid,
            started: date(crumb.start_realtime_ns), lastSeen: date(crumb.heartbeat_realtime_ns),
            lastPhase: phase.isEmpty ? nil : phase, signal: nil, memory: memory, oomKillsThen: oomThen,
            oomKillsNow: oomKillsNow,
            lastWarning: crumb.last_warning_realtime_ns == 0 ? nil : date(crumb.last_warning_realtime_ns),
            lastWarningReason: warningReason.isEmpty ? nil : warningReason)
        if crumb.sequence % 2 == 1 { exit.evidence.append("it died while updating its breadcrumb") }

        if crumb.clean_exit == 1 {
            exit.reason = .clean
            exit.confidence = .certain
            exit.evidence.insert("its memory watch was stopped (a graceful shutdown)", at: 0)
            return exit
        }
        if crumb.fatal_signal != 0 {
            exit.reason = .crashed
            exit.confidence = .certain
            exit.signal = crumb.fatal_signal
            exit.evidence.insert("its crash handler saw \(signalName(crumb.fatal_signal))", at: 0)
            return exit
        }
        let previousBoot = Breadcrumb.text(crumb.boot_id)
        if let bootID, !previousBoot.isEmpty, previousBoot != bootID {
            exit.reason = .machineRestarted
            exit.confidence = .certain
            exit.evidence.insert("the machine has restarted since (boot id \(previousBoot) then, \(bootID) now)", at: 0)
            return exit
        }

        var memoryEvidence: [String] = []
        var certain = false
        if let oomThen, let oomKillsNow, oomKillsNow > oomThen {
            certain = true
            let more = oomKillsNow - oomThen
            memoryEvidence.append(
                "its cgroup \(directory) counted \(more) OOM kill\(more == 1 ? "" : "s") after its last check (\(oomThen) then, \(oomKillsNow) now)"
            )
        }
        if let fraction = memory.usedFraction, fraction >= nearLimitFraction, let limit = memory.limitBytes {
            memoryEvidence.append(
                "at its last check its cgroup used \(percent(fraction)) of the \(mebibytes(limit)) limit")
        }
        let heartbeat = crumb.heartbeat_realtime_ns
        if crumb.last_warning_realtime_ns != 0, crumb.last_warning_realtime_ns + recentWarning >= heartbeat {
            let before = Double(heartbeat &- min(heartbeat, crumb.last_warning_realtime_ns)) / 1e9
            memoryEvidence.append(
                "a memory warning (\(warningReason)) \(String(format: "%.1f", before)) s before its last check")
        }
        if crumb.some_avg10 >= pressureAvg10 {
            memoryEvidence.append(
                "tasks were stalled on memory \(String(format: "%.0f", crumb.some_avg10))% of the 10 s before its last check"
            )
        }
        if !memoryEvidence.isEmpty {
            exit.reason = .killedForMemory
            exit.confidence = certain ? .certain : .likely
            exit.evidence.insert(contentsOf: ["no clean stop, no fatal signal seen"] + memoryEvidence, at: 0)
            return exit
        }
        var none = "no clean stop, no fatal signal seen, no memory evidence"
        if let oomThen, let oomKillsNow {
            none += " (its cgroup's OOM kills \(oomThen) then and now: \(oomKillsNow))"
        } else if version != nil, oomKillsNow == nil {
            none += " (its cgroup \(directory) is gone, so its OOM kills cannot be read)"
        }
        exit.evidence.insert(none + ": a SIGKILL or SIGTERM from outside, or a crash the handler could not see", at: 0)
        return exit
    }

    static func date(_ nanoseconds: UInt64) -> Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1e9) }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT",
            SIGTRAP: "SIGTRAP",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }
    static func mebibytes(_ bytes: UInt64) -> String { "\(Int((Double(bytes) / 1_048_576).rounded())) MiB" }
}
