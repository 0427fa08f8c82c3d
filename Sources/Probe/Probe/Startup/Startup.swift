import CProbe
import Foundation

/// Startup-phase marks measured from the process's time zero.
///
/// ```swift
/// Startup.mark("config-loaded")
/// Startup.mark("ready")
/// print(Startup.report().phases)
/// ```
///
/// A mark is one `clock_gettime(CLOCK_BOOTTIME)` and an atomic slot in a preallocated C table: no
/// allocation, no lock. A C constructor adds a "runtime-init" mark before `main`, so the time the
/// loader and runtime take is counted. When `PERFKIT_STARTUP_FILE` names a file (as
/// `perfkit startup` does), every mark is appended to it at exit as `<boottime-ns> <name>` lines
/// (the exit hook is registered only then).
///
/// Time zero, best first: `PERFKIT_STARTUP_T0` (a CLOCK_BOOTTIME timestamp in ns the launcher
/// took just before it started the process), else the kernel's process start time from
/// `/proc/self/stat` field 22, which has only clock-tick (10 ms) resolution.
public enum Startup {
    /// The environment variable a launcher sets to its CLOCK_BOOTTIME timestamp (ns).
    @_spi(Tooling) public static let timeZeroVariable = "PERFKIT_STARTUP_T0"
    /// The environment variable naming the file marks are written to at exit.
    @_spi(Tooling) public static let fileVariable = "PERFKIT_STARTUP_FILE"

    /// Records that the phase `name` is done. At most 256 marks are kept.
    @inline(__always)
    public static func mark(_ name: StaticString) {
        if name.hasPointerRepresentation {
            cprobe_startup_mark(UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self))
        } else {
            mark(dynamic: name.description)
        }
    }

    /// Records a mark with a computed name; copies the name once (allocates), so prefer the
    /// `StaticString` form on hot paths.
    public static func mark(dynamic name: String) {
        if let copy = strdup(name) { cprobe_startup_mark(copy) }
    }

    /// Forgets every mark, so a benchmark can mark more than the table holds.
    @_spi(Benchmarks) public static func resetForBenchmarks() { cprobe_startup_reset() }

    /// One phase: its name and when it was marked, in ns after time zero.
    public struct Phase: Sendable, Equatable {
        public var name: String
        public var nanosecondsSinceStart: Double
    }

    /// The phases marked so far, in order, and how time zero was found.
    public struct Report: Sendable, Equatable {
        public var timeZeroSource: String
        /// Time zero on the CLOCK_BOOTTIME scale, ns.
        public var timeZeroBoottimeNanoseconds: UInt64
        public var phases: [Phase]
        /// Time of the last mark after time zero, ns (0 without marks).
        public var totalNanoseconds: Double { phases.last?.nanosecondsSinceStart ?? 0 }
    }

    public static func report() -> Report {
        let (zero, source) = timeZero()
        var phases: [Phase] = []
        for index in 0..<cprobe_startup_mark_count() {
            var name: UnsafePointer<CChar>?
            var boottime: UInt64 = 0
            guard cprobe_startup_mark_at(index, &name, &boottime) == 0, let name else { continue }
            phases.append(Phase(name: String(cString: name), nanosecondsSinceStart: Double(boottime) - Double(zero)))
        }
        return Report(timeZeroSource: source, timeZeroBoottimeNanoseconds: zero, phases: phases)
    }

    /// Time zero (CLOCK_BOOTTIME ns) and its source: "launcher" or "proc-stat".
    static func timeZero() -> (UInt64, String) {
        if let text = ProcessInfo.processInfo.environment[timeZeroVariable], let value = UInt64(text) {
            return (value, "launcher")
        }
        if let start = processStartBoottime(pid: getpid()) { return (start, "proc-stat") }
        return (cprobe_runtime_init_ns(), "runtime-init")
    }

    /// The kernel's start time of `pid` (field 22 of `/proc/<pid>/stat`, in clock ticks since boot)
    /// as CLOCK_BOOTTIME ns. Resolution: one tick (10 ms at the usual 100 Hz).
    static func processStartBoottime(pid: Int32) -> UInt64? {
        guard let text = ThreadInfo.read("/proc/\(pid)/stat"),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name start at field 3 (state); field 22 is the 20th of them.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 20, let ticks = UInt64(fields[19]) else { return nil }
        let hertz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return ticks * (1_000_000_000 / hertz)
    }
}
