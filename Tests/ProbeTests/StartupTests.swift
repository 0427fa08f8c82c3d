import Foundation
import Testing

@testable @_spi(Tooling) import Probe

struct StartupTests {
    @Test func phasesOfALaunchedProgramComeBackInOrderWithPlausibleTimes() throws {
        let launcher = StartupLauncher(command: [builtExecutable("probe-test-helper"), "startup"])
        let launch = try launcher.launch()
        #expect(launch.exitStatus == 0)
        #expect(launch.phases.map(\.name) == ["runtime-init", "main", "config-loaded", "ready"])
        let times = launch.phases.map(\.nanosecondsSinceStart)
        #expect(times.first.map { $0 > 0 } == true, "runtime-init is after the launcher's time zero: \(times)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(times)")
        // The helper sleeps 20 ms then 30 ms between its marks.
        #expect(times[2] - times[1] >= 19e6)
        #expect(times[3] - times[2] >= 29e6)
        #expect(launch.exitNanoseconds >= times[3])
        #expect(launch.exitNanoseconds < 30e9)
        #expect(launch.majorPageFaults >= 0)
    }

    @Test(
        .disabled(if: ThreadInfo.procDescribesAnotherArchitecture, "emulated: qemu-user answers /proc/self/stat itself")
    )
    func inProcessReportStartsWithRuntimeInitAndUsesTheKernelStartTime() throws {
        Startup.mark("in-process-test")
        let report = Startup.report()
        #expect(report.phases.first?.name == "runtime-init")
        #expect(report.phases.contains { $0.name == "in-process-test" })
        if ProcessInfo.processInfo.environment[Startup.timeZeroVariable] == nil {
            #expect(report.timeZeroSource == "proc-stat")
        }
        // Time zero is the kernel's start time (10 ms ticks): runtime-init comes after it, give or take a tick.
        #expect(report.phases[0].nanosecondsSinceStart > -10e6)
        #expect(report.totalNanoseconds > report.phases[0].nanosecondsSinceStart)
    }

    @Test func launchingAMissingCommandIsAOneLineError() {
        let error = #expect(throws: StartupLauncher.LaunchError.self) {
            try StartupLauncher(command: ["/nonexistent/program"]).launch()
        }
        #expect(error?.kind == .notExecutable)
        #expect(error?.description == "/nonexistent/program: not an executable file")
    }
}
