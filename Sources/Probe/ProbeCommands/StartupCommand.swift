import PerfkitMain
import ArgumentParser
import Foundation
import Harness
import PerfReport
@_spi(Tooling) import Probe
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

package struct StartupCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract: "Launch a program several times and time its startup phases.",
        discussion: """
            The program reports phases with Probe's Startup.mark("name"); perfkit passes time zero \
            (PERFKIT_STARTUP_T0, CLOCK_BOOTTIME ns) and a file for the marks (PERFKIT_STARTUP_FILE). \
            A program without Probe still gets its time to exit. --cold evicts the program and its \
            shared libraries from the page cache before each launch (posix_fadvise DONTNEED; pages \
            other processes map stay cached); major page faults per launch show how cold it was.
            """
    )

    @Option(help: "Number of launches.")
    var runs = 10

    @Flag(help: "Warm launches (default) or cold ones (page cache evicted before each launch).")
    var mode: Mode = .warm

    @Option(name: .customLong("pressure-threads"), help: "Busy threads running during the launches.")
    var pressureThreads = 0

    @Option(name: .customLong("pressure-megabytes"), help: "Memory kept in use (and touched) during the launches.")
    var pressureMegabytes = 0

    @OptionGroup var destination: ReportOutputOptions<JSONOnly>

    @Argument(parsing: .postTerminator, help: "The command to launch, after --.")
    var command: [String] = []

    enum Mode: String, EnumerableFlag {
        case warm, cold
    }

    package func validate() throws {
        if command.isEmpty {
            throw ValidationError("give the command to launch after --, e.g. perfkit startup -- ./app")
        }
        if runs < 1 { throw ValidationError("--runs must be at least 1") }
        if pressureThreads < 0 || pressureMegabytes < 0 {
            throw ValidationError("pressure values must not be negative")
        }
    }

    package init() {}

    package func run() throws {
        let launcher = StartupLauncher(command: command)
        let evict: [String]
        do {
            _ = try launcher.executablePath()
            evict = mode == .cold ? try launcher.filesToEvict() : []
        } catch let error as StartupLauncher.LaunchError {
            throw PerfkitError(error)
        }
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date())
        let pressure = BackgroundPressure(threads: pressureThreads, megabytes: pressureMegabytes)
        pressure.start()
        defer { pressure.stop() }

        var launches: [StartupLauncher.Launch] = []
        for index in 0..<runs {
            if mode == .cold { StartupLauncher.evict(evict) }
            let launch: StartupLauncher.Launch
            do { launch = try launcher.launch() } catch let error as StartupLauncher.LaunchError {
                throw PerfkitError(error)
            }
            if launch.exitStatus != 0 {
                printError("warning: launch \(index + 1) exited with status \(launch.exitStatus)\n")
            }
            launches.append(launch)
        }
        pressure.stop()

        let result = Self.result(
            command: command, mode: mode.rawValue, underPressure: pressure.isActive, launches: launches)
        let report = probeReport(startup: [result], samples: runs)
        let written = try writer.write(report, formats: destination.formats, baseline: nil)
        print(Self.table(result))
        for url in written { print("report: \(url.path)") }
    }

    /// Per-phase statistics over the launches, phases in the order the program marked them,
    /// with the launcher's "exit" last. The total is the time to "ready" when every launch
    /// marked it, else the time to exit.
    static func result(command: [String], mode: String, underPressure: Bool, launches: [StartupLauncher.Launch])
        -> StartupResult
    {
        var order: [String] = []
        var times: [String: [Double]] = [:]
        for launch in launches {
            for phase in launch.phases {
                if times[phase.name] == nil { order.append(phase.name) }
                times[phase.name, default: []].append(phase.nanosecondsSinceStart)
            }
        }
        order.append("exit")
        times["exit"] = launches.map(\.exitNanoseconds)
        let phases = order.map { name in
            StartupPhase(
                name: name, nanosecondsSinceStart: times[name] ?? [],
                statistics: SampleStatistics.summarize(times[name] ?? []))
        }
        let ready = times["ready"].flatMap { $0.count == launches.count ? $0 : nil }
        let total = ready ?? launches.map(\.exitNanoseconds)
        let source = launches.contains { !$0.phases.isEmpty } ? "launcher" : "launcher (exit only)"
        return StartupResult(
            command: command, mode: mode, underPressure: underPressure, runs: launches.count, phases: phases,
            total: SampleStatistics.summarize(total), timeZeroSource: source,
            majorPageFaultsPerLaunch: launches.map(\.majorPageFaults))
    }

    static func table(_ result: StartupResult) -> String {
        func ms(_ ns: Double) -> String { String(format: "%.2f ms", ns / 1e6) }
        var lines = ["\(result.mode) startup of \(result.command.joined(separator: " ")), \(result.runs) runs"]
        lines.append("phase".padding(toLength: 24, withPad: " ", startingAt: 0) + "median        min           max")
        for phase in result.phases {
            let s = phase.statistics
            lines.append(
                phase.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                    + ms(s.median).padding(toLength: 14, withPad: " ", startingAt: 0)
                    + ms(s.min).padding(toLength: 14, withPad: " ", startingAt: 0) + ms(s.max))
        }
        lines.append("total (median): \(ms(result.total.median))")
        lines.append(
            "major page faults per launch: \(result.majorPageFaultsPerLaunch.map(String.init).joined(separator: " "))")
        return lines.joined(separator: "\n")
    }
}

/// Optional background load during launches: busy threads, and memory kept in use by touching it.
final class BackgroundPressure: Sendable {
    let threads: Int
    let megabytes: Int
    private let stopping = Atomic<Bool>(false)
    private let running = Mutex<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    init(threads: Int, megabytes: Int) {
        self.threads = threads
        self.megabytes = megabytes
    }

    var isActive: Bool { threads > 0 || megabytes > 0 }

    func start() {
        let count = max(threads, megabytes > 0 ? 1 : 0)
        running.withLock { $0 = count }
        for index in 0..<count {
            let size = index == 0 ? megabytes * 1_048_576 : 0
            let thread = Thread { [self] in
                let memory = size > 0 ? UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096) : nil
                var offset = 0
                while !stopping.load(ordering: .relaxed) {
                    if let memory {
                        memory.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: offset, as: UInt8.self)
                        offset = (offset + 4096) % size
                    }
                }
                memory?.deallocate()
                finished.signal()
            }
            thread.start()
        }
    }

    /// Stops the load and waits for it to end; safe to call more than once.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        let count = running.withLock { count in
            defer { count = 0 }
            return count
        }
        for _ in 0..<count { finished.wait() }
    }
}

extension PerfkitError {
    /// A launch that did not happen: a command that is not there is the user's input; one that
    /// would not start or be waited for is a failed run.
    fileprivate init(_ error: StartupLauncher.LaunchError) {
        switch error.kind {
        case .noCommand, .notExecutable, .notFound: self.init(.invalidInput, error.description, cause: error)
        case .cannotStart, .waitFailed: self.init(.runFailed, error.description, cause: error)
        }
    }
}
