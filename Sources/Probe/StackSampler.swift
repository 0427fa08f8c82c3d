import CProbe

/// Takes single stack samples of other threads of this process, the way a ``Watchdog`` does:
/// a real-time signal to the thread, libunwind in the C handler, a wait with a timeout.
///
/// The thread must have unblocked the signal and should have primed libunwind
/// (``Heartbeat/currentThread(signal:)`` does both for the calling thread).
public final class StackSampler {
    public let signal: Int32
    private let slot: Int32
    private let buffer = UnsafeMutablePointer<UInt>.allocate(capacity: Int(CPROBE_MAX_FRAMES))

    public init(signal: Int32 = WatchdogConfiguration.defaultSignal) throws {
        self.signal = signal
        let error = cprobe_install_handler(signal)
        guard error == 0 else { throw Watchdog.StartError(description: "cannot install the handler for signal \(signal)") }
        slot = cprobe_slot_acquire()
        guard slot >= 0 else {
            cprobe_uninstall_handler(signal)
            throw Watchdog.StartError(description: "too many samplers at once (at most \(CPROBE_MAX_SLOTS))")
        }
    }

    deinit {
        cprobe_slot_release(slot)
        cprobe_uninstall_handler(signal)
        buffer.deallocate()
    }

    /// The thread's stack (innermost first), or nil when it did not answer within `timeout`.
    public func sample(threadID: Int32, timeout: Duration = .milliseconds(100)) -> [UInt]? {
        var depth: Int32 = 0
        let result = cprobe_sample(slot, signal, threadID, timeout.nanoseconds, buffer, CPROBE_MAX_FRAMES, &depth)
        guard result == Int32(CPROBE_SAMPLE_OK) else { return nil }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(depth)))
    }

    /// The calling thread's kernel thread id.
    public static var currentThreadID: Int32 { cprobe_gettid() }
}
