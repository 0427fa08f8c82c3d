public import NIOCore
public import Probe

/// Watches every event loop of a SwiftNIO group (a `MultiThreadedEventLoopGroup`, the
/// `.singleton` Hummingbird and Vapor run on): one ``Watchdog`` per loop, named after the
/// configuration's name and the loop's index — `event-loop-0`, `event-loop-1`, … for the name
/// `event-loop`.
///
/// ```swift
/// let loops = EventLoopGroupWatchdog(
///     watching: MultiThreadedEventLoopGroup.singleton,
///     configuration: .init(name: "event-loop", threshold: .milliseconds(100)))
/// try loops.start()
/// …
/// loops.stop()   // before the group shuts down
/// ```
public struct EventLoopGroupWatchdog: Sendable {
    /// One per loop, in the group's iteration order.
    public let watchdogs: [Watchdog]

    /// Each loop's watchdog gets a copy of `configuration` named `"\(configuration.name)-\(index)"`.
    public init(watching group: any EventLoopGroup, configuration: WatchdogConfiguration) {
        watchdogs = group.makeIterator().enumerated().map { index, loop in
            var perLoop = configuration
            perLoop.name = "\(configuration.name)-\(index)"
            return Watchdog(watching: .eventLoop(loop), configuration: perLoop)
        }
    }

    /// Starts every loop's watchdog, or none: when one cannot start (a loop already watched, a
    /// configuration `Watchdog.start()` refuses), those this call started are stopped again and
    /// its error is thrown. Watchdogs already running are left as they are.
    public func start() throws {
        var started: [Watchdog] = []
        do {
            for watchdog in watchdogs where !watchdog.isRunning {
                try watchdog.start()
                started.append(watchdog)
            }
        } catch {
            for watchdog in started { watchdog.stop() }
            throw error
        }
    }

    /// Stops every loop's watchdog (a stall going on is reported with `ongoing: true`). Stopping
    /// twice is a no-op.
    public func stop() {
        for watchdog in watchdogs { watchdog.stop() }
    }
}
