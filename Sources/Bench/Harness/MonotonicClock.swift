import CHarness

/// The clocks a sample is measured with.
public enum MonotonicClock {
    public static let source = "CLOCK_MONOTONIC"

    @inline(__always)
    public static func now() -> UInt64 { charness_monotonic_ns() }

    /// CPU time of the whole process (all threads), so benchmarks that hand work to other
    /// threads (GCD) are charged for it.
    @inline(__always)
    public static func processCPU() -> UInt64 { charness_process_cpu_ns() }

    /// CPU time of the calling thread alone: work that advances only while this thread runs.
    @inline(__always)
    public static func threadCPU() -> UInt64 { charness_thread_cpu_ns() }

    public static var resolutionNanoseconds: Double { Double(charness_monotonic_resolution_ns()) }

    /// Median gap between two back-to-back clock reads: the overhead every sample carries once.
    /// Measured as the median over many batches so a descheduling does not inflate it.
    public static func measureOverhead(batches: Int = 200, readsPerBatch: Int = 1000) -> Double {
        var perPair: [Double] = []
        perPair.reserveCapacity(batches)
        for _ in 0..<batches {
            let start = now()
            var last = start
            for _ in 0..<readsPerBatch {
                last = now()
            }
            // The gap between two consecutive reads is what a sample's start/end pair adds to it.
            perPair.append(Double(last &- start) / Double(readsPerBatch))
        }
        perPair.sort()
        return perPair[perPair.count / 2]
    }
}

/// Process-wide context switch counts from `getrusage(RUSAGE_SELF)`.
struct ContextSwitches {
    var voluntary: Int64 = 0
    var involuntary: Int64 = 0

    static func now() -> ContextSwitches {
        var value = ContextSwitches()
        charness_context_switches(&value.voluntary, &value.involuntary)
        return value
    }
}

/// Ctrl-C during a run: the first SIGINT asks the run to stop after the current sample and write
/// what finished; a second one ends the process.
public enum InterruptFlag {
    public static func install() { charness_install_interrupt_flag() }
    public static var isSet: Bool { charness_interrupted() != 0 }
}
