import Foundation
import PerfReport

/// How a report's times were taken: natively or under valgrind, in which build configuration, on
/// which processor. Times taken under different conditions do not compare (callgrind runs 30–100×
/// slower than native); exact counts (instructions, allocations) do not depend on any of these.
public struct TimingConditions: Equatable, Sendable {
    /// True when the run's benchmarks executed under valgrind (`--instructions` on a machine
    /// without hardware counters re-executes the whole run under callgrind).
    public var underValgrind: Bool
    /// "release" or "debug".
    public var buildConfiguration: String
    public var cpuModel: String
    public var coreCount: Int
    /// What emulated the run's architecture (``Environment/emulator``); nil on real hardware.
    public var emulator: String?
    /// Whether every process hashed with Swift's one fixed seed (``Environment/deterministicHashing``);
    /// nil: not recorded (an older report), which compares with either.
    public var deterministicHashing: Bool?

    public init(
        underValgrind: Bool, buildConfiguration: String, cpuModel: String, coreCount: Int, emulator: String? = nil,
        deterministicHashing: Bool? = nil
    ) {
        self.underValgrind = underValgrind
        self.buildConfiguration = buildConfiguration
        self.cpuModel = cpuModel
        self.coreCount = coreCount
        self.emulator = emulator
        self.deterministicHashing = deterministicHashing
    }

    /// A run about to start here: known before anything is measured, so a comparison that cannot
    /// be made is refused at once.
    public static func here(buildConfiguration: String, underValgrind: Bool) -> TimingConditions {
        TimingConditions(
            underValgrind: underValgrind, buildConfiguration: buildConfiguration,
            cpuModel: EnvironmentCapture.cpuModel(), coreCount: ProcessInfo.processInfo.activeProcessorCount,
            emulator: EnvironmentCapture.emulator(architecture: EnvironmentCapture.machineArchitecture()),
            deterministicHashing: EnvironmentCapture.deterministicHashing())
    }

    public init(of report: Report) {
        underValgrind = report.benchmarks.contains { $0.instructionsSource == CallgrindInstructionCounter.source }
        buildConfiguration = report.environment.buildConfiguration
        cpuModel = report.environment.cpuModel
        coreCount = report.environment.coreCount
        emulator = report.environment.emulator
        deterministicHashing = report.environment.deterministicHashing
    }

    /// Why times taken under `self` (the baseline's) and `current` do not compare, one phrase
    /// per difference; empty when they do.
    public func differences(from current: TimingConditions) -> [String] {
        var reasons: [String] = []
        if underValgrind != current.underValgrind {
            reasons.append(
                "the baseline's times were taken \(underValgrind ? "under valgrind (callgrind)" : "natively"), "
                    + "this run's \(current.underValgrind ? "under valgrind (callgrind)" : "natively")")
        }
        if emulator != current.emulator {
            reasons.append(
                "the baseline's times were taken \(emulator.map { "under \($0) emulation" } ?? "on real hardware"), "
                    + "this run's \(current.emulator.map { "under \($0) emulation" } ?? "on real hardware")")
        }
        if let fixed = deterministicHashing, let currentFixed = current.deterministicHashing, fixed != currentFixed {
            // One seed for every process against a seed per process: a hashing benchmark's level
            // then differs by the seed alone, and each process would count as a draw of it.
            func hashing(_ fixed: Bool) -> String {
                fixed ? "with Swift's one fixed seed (SWIFT_DETERMINISTIC_HASHING set)" : "each with a seed of its own"
            }
            reasons.append(
                "the baseline's processes hashed \(hashing(fixed)), this run's \(hashing(currentFixed)): record both the same way"
            )
        }
        if buildConfiguration != current.buildConfiguration {
            reasons.append(
                "the baseline is a \(buildConfiguration) build, this run a \(current.buildConfiguration) one")
        }
        if cpuModel != current.cpuModel || coreCount != current.coreCount {
            reasons.append(
                "the baseline ran on \(cpuModel) with \(coreCount) cores, this run on \(current.cpuModel) with \(current.coreCount)"
            )
        }
        return reasons
    }
}
