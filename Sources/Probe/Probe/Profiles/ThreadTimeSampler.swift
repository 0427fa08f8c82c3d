import CProbe
import Foundation
import ProbeRecords

/// Samples the calling thread's CPU time while it runs the caller's work: a timer on the thread's
/// own CPU clock (``CPUTimers``' signal handler and ring), drained between the caller's chunks of
/// work, so the 1,024-sample ring never fills. For the gate's time profiles of one benchmark.
package final class ThreadTimeSampler {
    /// One function on a sampled stack: demangled, and as the binary spells it when that differs.
    package struct Frame: Hashable, Sendable {
        package var name: String
        package var symbol: String?
    }

    /// A distinct stack inside the caller's work (innermost first), the samples taken of it and
    /// the timer expirations they stand for: each expiration is ``interval`` ns of the thread's CPU
    /// time. The kernel checks CPU timers at its tick (every 4 ms at 250 Hz), so a sample is often several
    /// expirations; samples are the independent draws an interval is computed from.
    package struct Stack: Sendable {
        package var frames: [Frame]
        package var samples: Int
        package var expirations: Int
    }

    package let interval: UInt64
    private let signal: Int32
    private let set: Int32
    private let tid = cprobe_gettid()
    private let drained = UnsafeMutablePointer<cprobe_timer_sample>.allocate(capacity: CPUTimers.drainBatch)
    private var counts: [[UInt]: (samples: Int, expirations: Int)] = [:]
    /// The stack outside the work (outermost frames), from a sample the thread took of itself.
    private var outside: [UInt] = []

    /// Claims a timer set and installs the handler: `interval` of the thread's CPU time per sample.
    package init(
        interval: UInt64 = 1_000_000, signal: Int32 = WatchdogConfiguration.defaultSignal
    ) throws(ProcessProfiler.ProfileError) {
        self.interval = interval
        self.signal = signal
        FramePointerCode.publish()
        do {
            set = try CPUTimers.claimSet(signal: signal)
        } catch {
            drained.deallocate()
            throw error
        }
    }

    deinit {
        cprobe_timer_set_release(set)
        CPUTimers.uninstall(signal: signal, threads: [tid])
        drained.deallocate()
    }

    /// Calls `chunk` until it returns false, with the calling thread's CPU clock sampled; the ring
    /// is drained after each chunk (so a chunk should last well under a second of CPU time), and
    /// samples taken outside a chunk (the draining) are left out.
    @inline(never)
    package func sample(while chunk: () -> Bool) throws(ProcessProfiler.ProfileError) {
        _ = cprobe_unblock_signal(signal)
        // This frame's callers are the same for every sample of the work: they are cut off.
        if cprobe_timer_signal_self(set, signal, 0) == 0 {
            drain(from: 0, to: .max) { stack, _ in outside = stack }
        }
        var timer: Int32 = -1
        let error = cprobe_timer_arm(set, signal, tid, 0, interval, &timer)
        guard error == 0 else {
            throw ProcessProfiler.ProfileError(
                .signalUnavailable, "cannot arm a CPU-clock timer: \(String(cString: strerror(error)))")
        }
        defer { cprobe_timer_disarm(timer) }
        while true {
            let start = cprobe_monotonic_ns()
            let more = chunk()
            let end = cprobe_monotonic_ns()
            drain(from: start, to: end, record)
            if !more { break }
        }
    }

    /// Samples of the work taken so far, and the timer expirations they stand for.
    package var samples: Int { counts.values.reduce(0) { $0 + $1.samples } }
    package var expirations: Int { counts.values.reduce(0) { $0 + $1.expirations } }

    /// The distinct stacks of the work, symbolicated, most sampled first.
    package func stacks(symbolicator: Symbolicator = .shared) -> [Stack] {
        var frames: [UInt: Frame] = [:]
        return counts.sorted { $0.value.expirations > $1.value.expirations }.map { pcs, count in
            let missing = pcs.enumerated().filter { frames[$0.element] == nil }
            if !missing.isEmpty {
                // Symbolicated in place: a return address is looked up inside its call instruction.
                let resolved = symbolicator.symbolicateWithLinkNames(stack: pcs)
                for (index, _) in missing {
                    let (frame, linkName) = resolved[index]
                    frames[pcs[index]] = Frame(
                        name: Self.name(of: frame), symbol: linkName == frame.symbol ? nil : linkName)
                }
            }
            return Stack(frames: pcs.map { frames[$0]! }, samples: count.samples, expirations: count.expirations)
        }
    }

    /// A frame's function; without a symbol, its module's file name (`libc.so.6 (no symbol)`), so
    /// that the addresses of one unnamed function are one entry, not one each.
    static func name(of frame: StackFrame) -> String {
        if let symbol = frame.symbol, !symbol.isEmpty { return symbol }
        guard let module = frame.module, !module.isEmpty else { return frame.functionName }
        return (module.split(separator: "/").last.map(String.init) ?? module) + " (no symbol)"
    }

    private func record(_ stack: [UInt], _ expirations: Int) {
        let work = inside(stack)
        guard !work.isEmpty else { return }
        counts[work, default: (0, 0)].samples += 1
        counts[work, default: (0, 0)].expirations += expirations
    }

    /// `stack` without the frames it shares with ``outside`` and the frame that called the work
    /// (whole when it shares none: a stack deeper than the sampler keeps).
    private func inside(_ stack: [UInt]) -> [UInt] {
        var shared = 0
        while shared < stack.count, shared < outside.count,
            stack[stack.count - 1 - shared] == outside[outside.count - 1 - shared]
        {
            shared += 1
        }
        guard shared > 0 else { return stack }
        return Array(stack.dropLast(min(stack.count, shared + 1)))
    }

    /// Passes on the samples taken between `start` and `end` (monotonic ns) with a stack, and
    /// drops the others.
    private func drain(from start: UInt64, to end: UInt64, _ sink: ([UInt], Int) -> Void) {
        CPUTimers.drain(set: set, scratch: drained) { _, stack, expirations, time in
            guard !stack.isEmpty, time >= start, time <= end else { return }
            sink(Array(stack), expirations)
        }
    }
}
