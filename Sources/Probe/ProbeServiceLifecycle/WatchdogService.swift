import Foundation
public import Probe
public import ServiceLifecycle

/// Runs watchdogs as a swift-service-lifecycle `Service`, the way Hummingbird and Vapor
/// applications run their parts: ``run()`` starts them and returns once graceful shutdown is
/// triggered (or the task is cancelled), after stopping them — a stall still going on is then
/// reported with `ongoing: true`, so none is lost.
///
/// List it **first** in the `ServiceGroup`: services shut down in reverse order, so the
/// watchdogs keep watching while the server drains its requests.
///
/// ```swift
/// let loops = EventLoopGroupWatchdog(watching: MultiThreadedEventLoopGroup.singleton, configuration: …)
/// let pool = Watchdog(watching: .cooperativePool, configuration: …)
/// let services: [any Service] = [WatchdogService(watchdogs: loops.watchdogs + [pool]), app]
/// ```
///
/// With a ``MemoryWatch`` it starts that first (so how the previous instance ended is logged
/// before anything else) and stops it last: its breadcrumb then tells the next instance that this
/// one shut down cleanly.
///
/// With a ``ProfileServer`` it starts that after the watchdogs and stops it before them, so the
/// service can be profiled for as long as it is watched. With a ``FlightRecorder`` it starts that
/// before the watchdogs and stops it after them, so every stall record gets its `before`.
public struct WatchdogService: Service {
    public let watchdogs: [Watchdog]
    public let memoryWatch: MemoryWatch?
    public let profileServer: ProfileServer?
    public let flightRecorder: FlightRecorder?

    public init(
        watchdogs: [Watchdog], memoryWatch: MemoryWatch? = nil, profileServer: ProfileServer? = nil,
        flightRecorder: FlightRecorder? = nil
    ) {
        self.watchdogs = watchdogs
        self.memoryWatch = memoryWatch
        self.profileServer = profileServer
        self.flightRecorder = flightRecorder
    }

    /// Why ``run()`` did not start (a watchdog that could not start throws its own
    /// `Watchdog.StartError`, a memory watch its `MemoryWatchError`).
    public struct RunError: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A watchdog was running already: the service owns its watchdogs' lifetime.
            case watchdogAlreadyRunning
            /// The memory watch was running already.
            case memoryWatchAlreadyRunning
        }

        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    /// Starts every watchdog and the profile server (or none: the first one that cannot start is
    /// thrown, a server's `ProfileServer.StartError` too, the others are stopped again), waits for graceful shutdown or cancellation, then stops them all.
    ///
    /// A watchdog that is already running when `run()` begins is refused with ``RunError``: the
    /// service owns its watchdogs' lifetime, so running it twice at once, or starting its
    /// watchdogs elsewhere too, would have one owner stop them under the other. Stopping (a
    /// second graceful shutdown, a cancellation after it) is a no-op once they are stopped.
    public func run() async throws {
        if let running = watchdogs.first(where: \.isRunning) {
            throw RunError(
                kind: .watchdogAlreadyRunning,
                message:
                    "watchdog \"\(running.configuration.name)\" is already running: a WatchdogService starts and stops its watchdogs itself (is the service run twice?)"
            )
        }
        if let memoryWatch, memoryWatch.isRunning {
            throw RunError(
                kind: .memoryWatchAlreadyRunning,
                message:
                    "memory watch \"\(memoryWatch.configuration.name)\" is already running: a WatchdogService starts and stops it itself"
            )
        }
        try memoryWatch?.start()
        var started: [Watchdog] = []
        do {
            try flightRecorder?.start()
            for watchdog in watchdogs {
                try watchdog.start()
                started.append(watchdog)
            }
            try profileServer?.start()
        } catch {
            await Self.stop(started, memoryWatch: nil, profileServer: nil, flightRecorder: flightRecorder)
            memoryWatch?.stop()
            throw error
        }
        // Returns on graceful shutdown; throws CancellationError on cancellation: stop either way.
        try? await gracefulShutdown()
        await Self.stop(
            watchdogs, memoryWatch: memoryWatch, profileServer: profileServer, flightRecorder: flightRecorder)
    }

    /// `Watchdog.stop()` and `ProfileServer.stop()` wait for their threads to finish (up to one
    /// sample's answer timeout, or a response's send timeout): do that on a thread of its own
    /// rather than hold a cooperative-pool thread, which a starving pool may not have to spare.
    private static func stop(
        _ watchdogs: [Watchdog], memoryWatch: MemoryWatch?, profileServer: ProfileServer?,
        flightRecorder: FlightRecorder?
    ) async {
        guard !watchdogs.isEmpty || memoryWatch != nil || profileServer != nil || flightRecorder != nil else {
            return
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            ProbeThreads.start(name: "probe-stop") {
                profileServer?.stop()
                for watchdog in watchdogs { watchdog.stop() }
                flightRecorder?.stop()
                memoryWatch?.stop()
                done.resume()
            }
        }
    }
}
