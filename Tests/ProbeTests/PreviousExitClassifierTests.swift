import CProbe
import Foundation
import Testing

@testable import Probe

/// The verdicts by elimination, on breadcrumbs as an instance leaves them.
struct PreviousExitClassifierTests {
    static let boot = "0d7f1a52-6c1e-4a3b-9b7e-2f7a9c1d2e3f"

    static func crumb(_ change: (inout cprobe_breadcrumb) -> Void = { _ in }) -> cprobe_breadcrumb {
        var crumb = cprobe_breadcrumb()
        crumb.magic = CPROBE_BREADCRUMB_MAGIC
        crumb.version = UInt32(CPROBE_BREADCRUMB_VERSION)
        crumb.pid = 4242
        crumb.start_realtime_ns = 1_764_000_000_000_000_000
        crumb.heartbeat_realtime_ns = crumb.start_realtime_ns + 60_000_000_000
        crumb.cgroup_version = 1
        crumb.cgroup_usage_bytes = 100 << 20
        crumb.cgroup_limit_bytes = 256 << 20
        crumb.cgroup_oom_kills = 0
        withUnsafeMutableBytes(of: &crumb.boot_id) { raw in
            for (i, byte) in boot.utf8.enumerated() { raw[i] = byte }
        }
        change(&crumb)
        return crumb
    }

    static func classify(_ crumb: cprobe_breadcrumb, oomKillsNow: UInt64? = 0, boot: String = boot) -> PreviousExit {
        PreviousExitClassifier.classify(crumb, bootID: boot, oomKillsNow: oomKillsNow, nearLimitFraction: 0.9)
    }

    @Test func cleanBeforeAnythingElse() {
        let exit = Self.classify(
            Self.crumb {
                $0.clean_exit = 1
                $0.cgroup_usage_bytes = 255 << 20
            }, oomKillsNow: 3)
        #expect(exit.reason == .clean && exit.confidence == .certain)
    }

    @Test func aRecordedSignalIsACrash() {
        let exit = Self.classify(Self.crumb { $0.fatal_signal = SIGSEGV })
        #expect(exit.reason == .crashed && exit.signal == SIGSEGV)
        #expect(exit.evidence.first == "its crash handler saw SIGSEGV")
    }

    @Test func anotherBootEndedIt() {
        let exit = Self.classify(Self.crumb(), boot: "11111111-2222-3333-4444-555555555555")
        #expect(exit.reason == .machineRestarted)
    }

    @Test func aRisenOOMKillCountIsCertain() {
        let exit = Self.classify(Self.crumb(), oomKillsNow: 1)
        #expect(exit.reason == .killedForMemory && exit.confidence == .certain)
        #expect(exit.evidence.contains { $0.contains("counted 1 OOM kill after its last check (0 then, 1 now)") })
    }

    @Test func nearTheLimitOrUnderPressureIsLikely() {
        let near = Self.classify(Self.crumb { $0.cgroup_usage_bytes = 250 << 20 })
        #expect(near.reason == .killedForMemory && near.confidence == .likely)
        #expect(near.evidence.contains("at its last check its cgroup used 98% of the 256 MiB limit"))
        let pressured = Self.classify(
            Self.crumb { $0.last_warning_realtime_ns = $0.heartbeat_realtime_ns - 1_000_000_000 })
        #expect(pressured.reason == .killedForMemory && pressured.confidence == .likely)
        let stalled = Self.classify(Self.crumb { $0.some_avg10 = 40 })
        #expect(stalled.reason == .killedForMemory)
    }

    @Test func nothingToGoOnIsKilledOtherwise() {
        let exit = Self.classify(Self.crumb { $0.last_warning_realtime_ns = $0.heartbeat_realtime_ns - 60_000_000_000 })
        #expect(exit.reason == .killedOtherwise && exit.confidence == .unknown)
        #expect(exit.evidence.first?.contains("OOM kills 0 then and now: 0") == true)
        let gone = Self.classify(Self.crumb(), oomKillsNow: nil)
        #expect(gone.reason == .killedOtherwise)
        #expect(gone.evidence.first?.contains("is gone") == true)
    }
}
