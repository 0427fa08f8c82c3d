import PerfkitMain
import ArgumentParser
import Dispatch
import Foundation
import Logging
import ProbeRecords
import Probe

#if canImport(Glibc)
    import Glibc
#endif

package struct WatchDemoCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "watch-demo",
        abstract: "Watch this program's main queue while it stalls on purpose, and show the stall reports.",
        discussion: """
            The main thread runs dispatchMain() and stalls three times: a busy loop, a wait for a \
            lock another thread holds, and a sleep in a syscall. Each stall is logged (swift-log), \
            printed with its top frames, and written to <output>/<timestamp>/report.json and stalls.jsonl.
            """
    )

    @Option(name: .customLong("threshold-ms"), help: "Stall threshold in milliseconds.")
    var thresholdMilliseconds = 200

    @Option(name: .customLong("stall-ms"), help: "How long each demonstration stall lasts, in milliseconds.")
    var stallMilliseconds = 600

    @Flag(
        help: ArgumentHelp(
            "Take the sleeping thread's stack with the signal too (interruptSleepingSyscalls).",
            discussion: """
                By default a thread asleep in a syscall is unwound from /proc and its stack memory. Under a \
                user-mode emulator (qemu-user) /proc shows the emulator's registers, so only the signal can \
                name the sleep's frames; the demo's sleep resumes after it.
                """))
    var interruptSleeps = false

    @OptionGroup var destination: ReportOutputOptions<JSONAndHTML>

    /// The HTML page too unless --format says otherwise: its stall timeline and call trees are what
    /// the demo is there to show.
    enum JSONAndHTML: DefaultReportFormats {
        static var formats: OutputFormats { OutputFormats(argument: "json,html")! }
    }

    package func validate() throws {
        if thresholdMilliseconds < 10 { throw ValidationError("--threshold-ms must be at least 10") }
        if stallMilliseconds <= thresholdMilliseconds {
            throw ValidationError("--stall-ms must be longer than --threshold-ms, or nothing stalls")
        }
    }

    package init() {}

    package func run() throws {
        let formats = destination.formats
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date())
        let jsonLines = writer.directory.appendingPathComponent("stalls.jsonl").path
        var configuration = WatchdogConfiguration(name: "main", threshold: .milliseconds(thresholdMilliseconds))
        // The watchdog refuses a threshold below its sample interval: short thresholds sample faster.
        configuration.sampleInterval = min(configuration.sampleInterval, configuration.threshold / 4)
        configuration.logger = Logger(label: "perfkit.watch-demo")
        configuration.jsonLinesPath = jsonLines
        configuration.interruptSleepingSyscalls = interruptSleeps
        configuration.onStall = { record in
            print(WatchDemoCommand.describe(record))
        }
        let watchdog = Watchdog(watching: .mainQueue, configuration: configuration)
        do { try watchdog.start() } catch { throw PerfkitError(.runFailed, "watch-demo: \(error)", cause: error) }

        let stall = stallMilliseconds
        let idle = DispatchTimeInterval.milliseconds(max(thresholdMilliseconds, 100) * 2)
        let steps: [(String, @Sendable () -> Void)] = [
            ("busy loop", { demoBusyLoop(milliseconds: stall) }),
            ("lock wait", { demoLockWait(milliseconds: stall) }),
            ("sleep in a syscall", { demoSleep(milliseconds: stall) }),
        ]
        let threshold = configuration.threshold
        // Each stall is its own main-queue block; in between the main queue is idle (waiting in
        // dispatchMain), so pings get through and each stall is seen to end.
        @Sendable func step(_ index: Int) {
            guard index < steps.count else {
                watchdog.stop()
                let stalls = watchdog.recentStalls
                do {
                    let written = try writer.write(probeReport(stalls: stalls), formats: formats, baseline: nil)
                    print("\(stalls.count) stalls reported (threshold \(threshold))")
                    for url in written { print("report: \(url.path)") }
                    print("stalls: \(jsonLines)")
                    Glibc.exit(stalls.count == steps.count ? 0 : 1)
                } catch {
                    printError("Error: \(error)\n")
                    Glibc.exit(1)
                }
            }
            print("-- stalling the main thread: \(steps[index].0) (\(stall) ms)")
            steps[index].1()
            DispatchQueue.main.asyncAfter(deadline: .now() + idle) { step(index + 1) }
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + idle) { step(0) }
        dispatchMain()
    }

    static func describe(_ record: StallRecord) -> String {
        let milliseconds = Int((record.durationNanoseconds / 1e6).rounded())
        let cpu = record.threadCPUNanoseconds.map { " cpu \(Int(($0 / 1e6).rounded())) ms," } ?? ""
        var lines = [
            "stall: \(milliseconds) ms, \(record.classification.rawValue),\(cpu) \(record.sampleCount) samples"
                + " (states \(Set(record.threadStates).sorted().joined())), group \"\(record.groupKey.prefix(80))\""
        ]
        for frame in record.topStack.prefix(6) {
            let module = frame.module.map { ($0 as NSString).lastPathComponent } ?? ""
            let marker = frame.async == true ? "[async] " : ""
            lines.append("    \(marker)\(frame.symbol ?? "0x" + String(frame.address, radix: 16))  [\(module)]")
        }
        return lines.joined(separator: "\n")
    }
}

@inline(never)
func demoBusyLoop(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    while DispatchTime.now().uptimeNanoseconds < end {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
    }
    if state == 0 { print("") }
}

/// A pthread mutex shared between two threads; the mutex itself is the synchronisation.
private final class DemoMutex: @unchecked Sendable {
    let raw = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(raw, nil) }
}

@inline(never)
func demoLockWait(milliseconds: Int) {
    let mutex = DemoMutex()
    let locked = DispatchSemaphore(value: 0)
    let holder = Thread {
        pthread_mutex_lock(mutex.raw)
        locked.signal()
        usleep(UInt32(milliseconds) * 1000)
        pthread_mutex_unlock(mutex.raw)
    }
    holder.start()
    locked.wait()
    pthread_mutex_lock(mutex.raw)  // the main thread waits here
    pthread_mutex_unlock(mutex.raw)
}

@inline(never)
func demoSleep(milliseconds: Int) {
    // The whole time, even when a sample's signal cuts the sleep short (EINTR); the work after the
    // call also keeps this function's frame (a tail call would leave none).
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 {
        guard errno == EINTR else { return print("nanosleep: errno \(errno)") }
        request = remaining
    }
}
