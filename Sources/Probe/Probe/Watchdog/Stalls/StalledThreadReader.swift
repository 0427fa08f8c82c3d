import CProbe

/// How a watchdog's loop reads a stalled thread: its CPU time, and one sample of what it is doing.
///
/// A seam beside ``WatchdogClock``: in the process the reader signals the thread or unwinds it from
/// `/proc` (``SignalSampler``); the tests that drive the loop in virtual time hand in a scripted
/// reader, so that what is decided from samples (confirmation, budgets, classification, records) is
/// tested without a thread to stall.
protocol StalledThreadReader: AnyObject {
    /// The thread's CPU time so far (ns), or nil when it cannot be read (the thread is gone).
    func cpuNanoseconds(of tid: Int32) -> Int64?
    /// Adds one sample of `tid` to `samples`; `since` is when the episode's sampling began, for the
    /// sampling budget.
    func sample(_ tid: Int32, into samples: inout ThreadSamples, since: UInt64, now: UInt64)
    /// True when the thread is asleep or in an uninterruptible wait (S, D): waiting for something
    /// other than a CPU.
    func isAsleep(_ tid: Int32) -> Bool
}

/// The real reader: a blocked thread's stack is read from `/proc` and its stack memory; a running
/// thread gets the sampling signal and its handler walks the stack, within the sampling budget.
final class SignalSampler: StalledThreadReader {
    private let configuration: WatchdogConfiguration
    private let slot: Int32
    private let sampleInterval: UInt64
    private let buffer = UnsafeMutablePointer<UInt>.allocate(capacity: Int(CPROBE_MAX_FRAMES))

    init(configuration: WatchdogConfiguration, slot: Int32, sampleInterval: UInt64) {
        self.configuration = configuration
        self.slot = slot
        self.sampleInterval = sampleInterval
    }

    deinit { buffer.deallocate() }

    func cpuNanoseconds(of tid: Int32) -> Int64? { ThreadInfo.cpuNanoseconds(of: tid) }

    func isAsleep(_ tid: Int32) -> Bool { ["S", "D"].contains(ThreadInfo.state(of: tid)) }

    func sample(_ tid: Int32, into samples: inout ThreadSamples, since: UInt64, now: UInt64) {
        let state = ThreadInfo.state(of: tid)
        var syscallLine: String?
        if state == "S" || state == "D" { syscallLine = ThreadInfo.syscallLine(of: tid) }
        let waitingIn = syscallLine.flatMap { ThreadInfo.syscallName(syscallLine: $0) }
        if let line = syscallLine, line != "running" {
            // Blocked: the stack is read from /proc and the stack memory, never by a signal,
            // which would cut a sleep short (EINTR) or wake a wait. The same wait as at the
            // previous sample has the same stack.
            if let last = samples.lastWait, last.line == line {
                samples.add(last.seen, state: state, waitingIn: waitingIn, at: now)
                return
            }
            if let stack = BlockedThreadStack.unwind(tid: tid, syscallLine: line) {
                samples.lastWait = (line, .stack(stack))
                samples.add(.stack(stack), state: state, waitingIn: waitingIn, at: now)
                return
            }
            if !configuration.interruptSleepingSyscalls, let name = ThreadInfo.interruptibleSleep(syscallLine: line) {
                // Not kept as the wait's answer: the unwind failed this once (the thread left the
                // wait during the walk, as a sleep in short steps does), and is tried again next time.
                samples.lastWait = nil
                samples.add(.syscall(name), state: state, waitingIn: waitingIn, at: now)
                return
            }
        }
        samples.lastWait = nil
        // The handler's time on the stalled thread stays within the budget: a sample that would
        // exceed it is not taken (deep stacks through code without frame records cost the most).
        let allowed = configuration.samplingBudget * Double(now.saturatingSubtract(since) + sampleInterval)
        if Double(samples.handlerNanoseconds) > allowed { return }
        let blocked = samples.blocksSignal ?? ThreadInfo.blocks(signal: configuration.signal, tid: tid)
        samples.blocksSignal = blocked
        if blocked {
            samples.add(nil, state: state, waitingIn: waitingIn, at: now)
            return
        }
        var info = cprobe_sample_info()
        let result = cprobe_sample(
            slot, configuration.signal, tid, configuration.answerTimeout.nanoseconds,
            Int32(CPROBE_UNWIND_FRAME_POINTERS), buffer, CPROBE_MAX_FRAMES, &info)
        if result == Int32(CPROBE_SAMPLE_OK), info.depth > 0 {
            let stack = Array(UnsafeBufferPointer(start: buffer, count: Int(info.depth)))
            samples.add(.stack(stack), state: state, waitingIn: waitingIn, handlerNanoseconds: info.handler_ns, at: now)
        } else {
            samples.add(nil, state: state, waitingIn: waitingIn, at: now)
        }
    }
}
