/// One of several threads sampled together in a stall: for a starvation of Swift concurrency's
/// cooperative pool, each pool thread, with what it was doing instead of starting new work.
public struct ThreadStack: Codable, Sendable, Equatable {
    public var threadID: Int32
    /// The thread's name (`/proc/self/task/<tid>/comm`).
    public var name: String?
    /// The thread's state at each of its samples: "R", "S", "D", …
    public var threadStates: [String]
    public var sampleCount: Int
    /// Samples that got no answer from the signal handler in time (or were not asked for, when
    /// the thread blocked the signal).
    public var unansweredSamples: Int
    /// The thread's most frequent stack, innermost frame first.
    public var topStack: [StackFrame]

    public init(
        threadID: Int32, name: String?, threadStates: [String], sampleCount: Int, unansweredSamples: Int,
        topStack: [StackFrame]
    ) {
        self.threadID = threadID
        self.name = name
        self.threadStates = threadStates
        self.sampleCount = sampleCount
        self.unansweredSamples = unansweredSamples
        self.topStack = topStack
    }
}
