/// Probe: a stall watchdog and a startup-phase timer for services.
///
/// - ``Watchdog`` watches one thread that must stay responsive (the main queue, a serial
///   `DispatchQueue`, or any loop that reports through a ``Heartbeat``) and reports each stall
///   longer than a threshold with sampled, symbolicated stacks as a `ProbeRecords.StallRecord`.
/// - ``Startup`` records startup phases (`Startup.mark("ready")`) against the process's time zero.
/// - ``Symbolicator`` turns program counters into demangled Swift names using the ELF symbol
///   tables of the loaded modules, so internal functions of the executable resolve too.
///
/// See `Sources/Probe/Probe/README.md` for the signal Probe uses and how to embed it.
import CProbe

/// The calling thread's stack as program counters, innermost first (libunwind, no signal).
/// Feed it to ``Symbolicator/symbolicate(stack:)``.
@_spi(Benchmarks) public func captureCurrentStack(maxDepth: Int = Int(CPROBE_MAX_FRAMES)) -> [UInt] {
    [UInt](unsafeUninitializedCapacity: max(1, maxDepth)) { buffer, count in
        count = Int(cprobe_unwind_self(buffer.baseAddress, Int32(buffer.count)))
        count = min(count, buffer.count)
    }
}
