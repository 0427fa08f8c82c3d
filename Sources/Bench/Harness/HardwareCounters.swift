import CHarness
import PerfReport

#if canImport(Glibc)
    import Glibc
#endif

/// Instruction and cycle counters from `perf_event_open`, where the kernel offers them.
///
/// On many VMs (this project's CI among them) the PMU is not virtualised and the syscall fails;
/// `open()` then returns nil and `unavailableReason` says why, so the report can list the metric
/// as unavailable instead of silently leaving it out.
final class HardwareCounters: RegionCounter {
    private var counters = charness_counters(instructions_fd: -1, cycles_fd: -1)

    private init() {}

    /// Opens the counters, or returns the reason they cannot be used here.
    static func open() -> Result<HardwareCounters, UnavailableMetric> {
        let value = HardwareCounters()
        let error = charness_counters_open(&value.counters)
        guard error == 0 else {
            let reason: String
            switch error {
            case ENOENT, EOPNOTSUPP, ENODEV:
                reason = "perf_event_open: hardware counters are not supported on this machine (\(errnoName(error)))"
            case EACCES, EPERM:
                reason =
                    "perf_event_open: not permitted (\(errnoName(error))); see /proc/sys/kernel/perf_event_paranoid"
            default:
                reason = "perf_event_open failed: \(errnoName(error))"
            }
            return .failure(UnavailableMetric(reason: reason))
        }
        return .success(value)
    }

    private var lastRead: (instructions: Double?, cycles: Double?) = (nil, nil)

    func start() { charness_counters_start(&counters) }

    /// Disables the counters and reads them at once (a `read` syscall allocates nothing).
    func pause() {
        var instructions: UInt64 = 0
        var cycles: UInt64 = 0
        lastRead =
            charness_counters_stop(&counters, &instructions, &cycles) == 0
            ? (Double(instructions), Double(cycles)) : (nil, nil)
    }

    func read(label: String) -> (instructions: Double?, cycles: Double?) { lastRead }

    deinit { charness_counters_close(&counters) }

    private static func errnoName(_ code: Int32) -> String {
        "\(String(cString: strerror(code))), errno \(code)"
    }
}

struct UnavailableMetric: Error {
    var reason: String
}
