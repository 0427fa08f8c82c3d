/// What the samples of one thread during one stall add up to: each distinct stack once with the
/// number of samples that saw it, the thread's state at each sample, and what could not be
/// sampled. Memory is bounded whatever the stall's length: at most `maxSamples` states and
/// `maxDistinctStacks` stacks; samples of further distinct stacks are only counted.
struct ThreadSamples {
    /// What a sample saw.
    enum Seen: Hashable {
        /// Program counters, innermost first.
        case stack([UInt])
        /// The thread slept in this syscall and was neither signalled nor unwound.
        case syscall(String)
    }

    static let maxDistinctStacks = 4096

    private(set) var counts: [Seen: Int] = [:]
    /// Distinct stacks in the order first seen (deterministic output).
    private(set) var order: [Seen] = []
    /// The thread's scheduler state at each sample.
    private(set) var states: [String] = []
    /// Samples the handler did not answer (or that could not be asked).
    private(set) var unanswered = 0
    /// Samples of a new distinct stack once `maxDistinctStacks` were held.
    private(set) var overflow = 0
    /// Time the signal handler spent on this thread's samples, for the sampling budget.
    private(set) var handlerNanoseconds: UInt64 = 0
    /// The syscall line of the latest wait that was unwound, and what it gave: a thread still in
    /// the same wait has the same stack.
    var lastWait: (line: String, seen: Seen)?
    /// Whether the thread blocks the sampling signal, read once (its `/proc` status) per stall:
    /// a stalled thread does not change its signal mask.
    var blocksSignal: Bool?

    /// Samples that found the thread waiting (state S or D), by the system call it waited in.
    private(set) var waits: [String: Int] = [:]
    /// When the first and the latest sample were taken (CLOCK_MONOTONIC ns; 0 before any).
    private(set) var firstSampleAt: UInt64 = 0
    private(set) var lastSampleAt: UInt64 = 0

    var sampleCount: Int { states.count }

    /// The system call most waiting samples were in, if any sample waited.
    var mostCommonWait: String? {
        waits.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    /// Time from the first sample to the latest.
    var sampledNanoseconds: UInt64 { lastSampleAt.saturatingSubtract(firstSampleAt) }

    mutating func add(
        _ seen: Seen?, state: String, waitingIn: String? = nil, handlerNanoseconds: UInt64 = 0, at time: UInt64 = 0
    ) {
        states.append(state)
        if let waitingIn { waits[waitingIn, default: 0] += 1 }
        if time != 0 {
            if firstSampleAt == 0 { firstSampleAt = time }
            lastSampleAt = time
        }
        self.handlerNanoseconds += handlerNanoseconds
        guard let seen else {
            unanswered += 1
            return
        }
        if let count = counts[seen] {
            counts[seen] = count + 1
        } else if order.count < Self.maxDistinctStacks {
            counts[seen] = 1
            order.append(seen)
        } else {
            overflow += 1
        }
    }

    /// The distinct stacks with their sample counts, first seen first.
    var weighted: [(seen: Seen, count: Int)] { order.map { ($0, counts[$0] ?? 0) } }
}
