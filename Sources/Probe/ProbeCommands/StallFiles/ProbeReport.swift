import PerfkitMain
import Foundation
import Harness
import PerfReport
import ProbeRecords

/// A report that carries Probe results (stalls or startup phases) and no benchmarks.
func probeReport(stalls: [StallRecord]? = nil, startup: [StartupResult]? = nil, samples: Int = 0) -> Report {
    Report(
        createdAt: Date(), environment: EnvironmentCapture.capture(buildConfiguration: buildConfiguration),
        settings: RunSettings(
            filter: nil, quick: false, samples: samples, timeBudgetSeconds: 0, warmupSeconds: 0,
            minSampleNanoseconds: 0, allocations: false, instructions: false),
        clock: ClockInfo(source: "CLOCK_BOOTTIME", resolutionNanoseconds: 1, overheadNanoseconds: 0),
        metrics: [], benchmarks: [], stalls: stalls, startup: startup)
}
