import Dispatch

/// What a ``Watchdog`` watches.
public enum WatchTarget: Sendable {
    /// The main queue (drained by the main thread's run loop, or after `dispatchMain()` by the
    /// thread libdispatch drains it on), by pings.
    case mainQueue
    /// A serial queue, by pings. The thread sampled is the one that ran the queue's latest ping
    /// (a serial queue hops between worker threads; see README).
    case queue(DispatchQueue)
    /// A thread that reports its busy periods itself.
    case heartbeat(Heartbeat)
    /// Any executor that accepts closures, by pings handed to `submit`: a SwiftNIO event loop
    /// (`submit: { job in eventLoop.execute(job) }`), an actor or `MainActor`
    /// (`submit: { job in Task { @MainActor in job() } }`), a custom `SerialExecutor`. The thread
    /// sampled is the one that ran the latest ping: exact for an executor that owns one thread.
    /// `name` identifies the executor: a second watchdog on the same name does not start.
    /// `submit` must not block and must run each job once; a job that never runs is a stall.
    case executor(name: String, submit: @Sendable (@escaping @Sendable () -> Void) -> Void)
    /// Starvation of Swift concurrency's cooperative pool (the global concurrent executor), by
    /// default-priority detached tasks as pings: a ping that cannot start within the threshold
    /// means every pool thread is taken, typically blocked in a synchronous wait inside a task.
    /// Such a stall is classified `starved` and carries every pool thread's stack.
    case cooperativePool

    /// What two watchdogs must not both watch.
    var identity: String {
        switch self {
        case .mainQueue: return "the main queue"
        case .queue(let queue):
            return queue === DispatchQueue.main
                ? "the main queue" : "queue \"\(queue.label)\" (\(ObjectIdentifier(queue)))"
        case .heartbeat(let heartbeat): return "the heartbeat of thread \(heartbeat.threadID)"
        case .executor(let name, _): return "executor \"\(name)\""
        case .cooperativePool: return "the cooperative pool"
        }
    }

    /// The observer that watches this target for a loop with `configuration` and `intervals`.
    func makeObserver(configuration: WatchdogConfiguration, intervals: WatchdogIntervals) -> any TargetObserver {
        let signal = configuration.signal
        switch self {
        case .heartbeat(let heartbeat):
            return HeartbeatObserver(heartbeat, samplingAge: intervals.samplingAge)
        case .mainQueue:
            return PingObserver(
                pinger: QueuePinger(queue: .main, isMain: true, signal: signal), configuration: configuration,
                intervals: intervals)
        case .queue(let queue):
            return PingObserver(
                pinger: QueuePinger(queue: queue, isMain: false, signal: signal), configuration: configuration,
                intervals: intervals)
        case .executor(_, let submit):
            return PingObserver(
                pinger: ExecutorPinger(submit: submit, signal: signal), configuration: configuration,
                intervals: intervals, mayWaitInEpoll: true)
        case .cooperativePool:
            return PoolJobsObserver(
                pinger: CooperativePoolPinger(signal: signal), configuration: configuration, intervals: intervals)
        }
    }
}
