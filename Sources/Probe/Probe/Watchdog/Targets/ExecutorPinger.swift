/// Pings for an executor that accepts closures (a SwiftNIO event loop, an actor reached through a
/// task, a custom serial executor). The thread sampled is the one that ran the latest ping:
/// exact for an executor that owns one thread, as a NIO event loop does.
final class ExecutorPinger: Pinger {
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let arrivals: PingArrivals

    init(submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void, signal: Int32) {
        self.submit = submit
        self.arrivals = PingArrivals(signal: signal)
    }

    func post(generation: UInt64) {
        let arrivals = self.arrivals
        submit { arrivals.arrive(generation: generation) }
    }

    var arrivedGeneration: UInt64 { arrivals.generation }
    var arrivedAt: UInt64 { arrivals.time }
    var threadID: Int32? { arrivals.thread }
}
