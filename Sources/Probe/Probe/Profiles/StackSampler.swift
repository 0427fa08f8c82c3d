import CProbe
import Foundation

/// Takes single stack samples of other threads of this process, the way a ``Watchdog`` does:
/// a real-time signal to the thread, an unwind in the C handler, a wait with a timeout.
///
/// The thread must have unblocked the signal and should have been prepared
/// (``Heartbeat/currentThread(signal:)`` does both for the calling thread): unprepared threads
/// are unwound with libunwind alone.
@_spi(Benchmarks) public final class StackSampler {
    /// How the handler unwinds the interrupted thread.
    public enum UnwindMethod: Sendable {
        /// Frame records, with libunwind only where they do not hold (code without frame
        /// pointers, the interrupted frame the first time its pc is seen). The default.
        case framePointers
        /// libunwind's DWARF unwinding for every frame.
        case libunwind
        /// No unwind: the interrupted instruction only. What the signal's round trip costs.
        case interruptedInstructionOnly

        var cValue: Int32 {
            switch self {
            case .framePointers: Int32(CPROBE_UNWIND_FRAME_POINTERS)
            case .libunwind: Int32(CPROBE_UNWIND_LIBUNWIND)
            case .interruptedInstructionOnly: Int32(CPROBE_UNWIND_NONE)
            }
        }
    }

    /// One answered sample.
    public struct Sample: Sendable {
        /// Program counters, innermost first (the first is the interrupted instruction).
        public var stack: [UInt]
        /// Frames the handler unwound with libunwind.
        public var libunwindFrames: Int
        /// Time the handler spent, from entry to the answer.
        public var handlerNanoseconds: UInt64
    }

    public let signal: Int32
    /// The sampling slot this sampler holds.
    let slot: Int32
    /// Where ``sampleInPlace(threadID:timeoutNanoseconds:)`` leaves the program counters.
    let buffer = UnsafeMutablePointer<UInt>.allocate(capacity: Int(CPROBE_MAX_FRAMES))

    public init(signal: Int32 = WatchdogConfiguration.defaultSignal) throws {
        self.signal = signal
        FramePointerCode.publish()
        let error = cprobe_install_handler(signal)
        guard error == 0 else {
            throw Watchdog.StartError(
                .signalUnavailable,
                "cannot install the handler for signal \(signal): \(String(cString: strerror(error)))",
                errorNumber: error)
        }
        slot = cprobe_slot_acquire()
        guard slot >= 0 else {
            cprobe_uninstall_handler(signal)
            throw Watchdog.StartError(.tooManyWatchdogs, "too many samplers at once (at most \(CPROBE_MAX_SLOTS))")
        }
    }

    deinit {
        cprobe_slot_release(slot)
        cprobe_uninstall_handler(signal)
        buffer.deallocate()
    }

    /// The thread's stack (innermost first), or nil when it did not answer within `timeout`.
    public func sample(
        threadID: Int32, timeout: Duration = .milliseconds(100), method: UnwindMethod = .framePointers
    ) -> [UInt]? {
        takeSample(threadID: threadID, timeout: timeout, method: method)?.stack
    }

    /// The thread's stack with what the handler measured, or nil when it did not answer in time.
    public func takeSample(
        threadID: Int32, timeout: Duration = .milliseconds(100), method: UnwindMethod = .framePointers
    ) -> Sample? {
        var info = cprobe_sample_info()
        let result = cprobe_sample(
            slot, signal, threadID, timeout.nanoseconds, method.cValue, buffer, CPROBE_MAX_FRAMES, &info)
        guard result == Int32(CPROBE_SAMPLE_OK) else { return nil }
        return Sample(
            stack: Array(UnsafeBufferPointer(start: buffer, count: Int(info.depth))),
            libunwindFrames: Int(info.libunwind_steps), handlerNanoseconds: info.handler_ns)
    }

    /// One sample left in ``buffer`` (innermost first), without copying: `cprobe_sample`'s result
    /// (`CPROBE_SAMPLE_…`) and the depth, for a caller that tells its failures apart.
    /// `task` is the Swift task the thread was running (0 for none).
    func sampleInPlace(threadID: Int32, timeoutNanoseconds: UInt64) -> (result: Int32, depth: Int, task: UInt) {
        var info = cprobe_sample_info()
        let result = cprobe_sample(
            slot, signal, threadID, timeoutNanoseconds, Int32(CPROBE_UNWIND_FRAME_POINTERS), buffer,
            CPROBE_MAX_FRAMES, &info)
        let answered = result == Int32(CPROBE_SAMPLE_OK)
        return (result, answered ? Int(info.depth) : 0, answered ? info.task : 0)
    }

    /// The calling thread's kernel thread id.
    public static var currentThreadID: Int32 { cprobe_gettid() }
}
