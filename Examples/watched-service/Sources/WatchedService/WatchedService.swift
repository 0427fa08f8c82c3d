import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOPosix
import Probe
import ProbeHeap
import ProbeNIO
import ProbeServiceLifecycle
import Prometheus
import ServiceLifecycle

/// `watched-service --port 8080 --stalls stalls.jsonl`: a Hummingbird server whose every event
/// loop and cooperative pool Probe watches, with routes that stall them on demand.
@main
struct WatchedService: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watched-service",
        abstract: "A Hummingbird service watched by Probe, with routes that stall it on demand.",
        discussion: """
            Routes: GET /fast, /block?ms=N[&loop=I] (busy loop on an event loop), /sleep?ms=N[&loop=I] \
            (usleep on an event loop), /handler-sleep?ms=N (usleep in a plain async handler, on its \
            cooperative-pool thread), /work?ms=N (CPU work in a plain async handler, never a stall: for \
            whole-process profiles), /starve?ms=N (every cooperative-pool thread in a synchronous \
            wait), /allocate?mib=N (keeps N MiB more, touched), /release (drops them), /orders?n=N \
            (builds and renders N small objects: allocation-heavy), /heap-sampler?on=0|1 (with \
            --heap-profile: stops and starts the sampler), /metrics (Prometheus text). Stalls are \
            appended to the --stalls file as JSON lines.
            """)

    @Option(help: "The TCP port to listen on (0: any free port, printed on start).")
    var port: Int = 8080

    @Option(help: "Where Probe appends each stall as one JSON line.")
    var stalls: String

    @Option(
        name: .customLong("pprof-dir"),
        help: "Where Probe writes each stall's profile as a pprof file (created if missing).")
    var pprofDirectory: String?

    @Option(
        help:
            "Probe's breadcrumb: kept up to date while the service runs, read at the next start to say how this instance ended."
    )
    var breadcrumb: String?

    @Option(name: .customLong("threshold-ms"), help: "A busy period longer than this is a stall.")
    var thresholdMilliseconds: Int = 100

    @Option(
        name: .customLong("resting-look-ms"),
        help: "How often Probe looks at an idle target (default: Probe's schedule).")
    var restingLookMilliseconds: Int?

    @Option(
        name: .customLong("profile-port"),
        help: "Serve whole-process profiles (Go's /debug/pprof routes) on 127.0.0.1 at this port (0: off).")
    var profilePort: Int = 0

    @Flag(
        inversion: .prefixedNo,
        help:
            "Keep Probe's flight recorder: every thread's recent CPU samples, a stall's `before`, /debug/pprof/flight.")
    var flightRecorder = true

    @Flag(
        name: .customLong("heap-profile"),
        help: "Sample allocations (ProbeHeap, one every 512 KiB): /debug/pprof/heap and /allocs on --profile-port.")
    var heapProfile = false

    @Flag(help: "Run without Probe (to measure what watching costs).")
    var noProbe = false

    @Option(help: "What Probe watches: all (every event loop and the cooperative pool), loops, pool.")
    var watch: Watched = .all

    enum Watched: String, ExpressibleByArgument, CaseIterable {
        case all, loops, pool
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535 (got \(port))") }
        guard (0...65535).contains(profilePort) else {
            throw ValidationError("--profile-port must be 0…65535 (got \(profilePort))")
        }
        guard !heapProfile || (profilePort != 0 && !noProbe) else {
            throw ValidationError("--heap-profile needs --profile-port (its profiles are served there) and Probe")
        }
        guard thresholdMilliseconds >= 20 else {
            throw ValidationError("--threshold-ms must be at least 20 (got \(thresholdMilliseconds))")
        }
    }

    func run() async throws {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = ProbeMetrics.durationHistogramBuckets(
            threshold: .milliseconds(thresholdMilliseconds))
        MetricsSystem.bootstrap(factory)
        let logger = Logger(label: "watched-service")
        let group = MultiThreadedEventLoopGroup.singleton

        var services: [any Service] = []
        if !noProbe {
            // The watchdogs are the first service: they are stopped last, after the server drains.
            // The memory watch logs how the previous instance ended as it starts, and marks this one
            // clean when the service stops it at graceful shutdown.
            var memory = MemoryWatchConfiguration(name: "memory", breadcrumbPath: breadcrumb)
            memory.logger = Logger(label: "probe")
            if heapProfile { try HeapProfiler.start() }
            // Its own thread and socket: it answers while the loops and the pool are starved.
            let profiles =
                profilePort == 0 ? nil : ProfileServer(configuration: .init(address: .loopback(port: profilePort)))
            services.append(
                WatchdogService(
                    watchdogs: watchdogs(group: group), memoryWatch: MemoryWatch(configuration: memory),
                    profileServer: profiles, flightRecorder: flightRecorder ? FlightRecorder() : nil))
        }
        let app = Application(
            router: makeRouter(group: group, registry: registry, heapSamplerSwitch: heapProfile),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "watched-service"),
            services: services,
            onServerRunning: { channel in
                // Scripts wait for this line (and read the port from it when --port 0).
                let line = "watched-service: listening on port \(channel.localAddress?.port ?? -1)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
        try await app.runService()
    }

    /// One watchdog per event loop (`event-loop-N`) and one on the cooperative pool.
    func watchdogs(group: MultiThreadedEventLoopGroup) -> [Watchdog] {
        var configuration = WatchdogConfiguration(name: "event-loop", threshold: .milliseconds(thresholdMilliseconds))
        configuration.jsonLinesPath = stalls
        if let pprofDirectory {
            // Probe refuses a directory that is not there (start() names it); the example makes it.
            try? FileManager.default.createDirectory(atPath: pprofDirectory, withIntermediateDirectories: true)
            configuration.pprofDirectory = pprofDirectory
        }
        if let restingLookMilliseconds { configuration.restingLookInterval = .milliseconds(restingLookMilliseconds) }
        configuration.logger = Logger(label: "probe")
        let loops = EventLoopGroupWatchdog(watching: group, configuration: configuration)
        configuration.name = "cooperative-pool"
        let pool = Watchdog(watching: .cooperativePool, configuration: configuration)
        switch watch {
        case .all: return loops.watchdogs + [pool]
        case .loops: return loops.watchdogs
        case .pool: return [pool]
        }
    }
}
