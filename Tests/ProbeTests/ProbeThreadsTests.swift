import Foundation
import ProbeRecords
import Testing

@testable import Probe

/// Probe's threads name themselves and are never taken for the service's.
struct ProbeThreadsTests {
    /// The names of this process's threads, by thread id.
    func threadNames() -> [Int32: String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var names: [Int32: String] = [:]
        for entry in entries {
            guard let tid = Int32(entry), let name = CooperativePoolThreads.name(of: tid) else { continue }
            names[tid] = name
        }
        return names
    }

    /// A watchdog started from a cooperative-pool thread (as `WatchdogService.run()` does) runs on
    /// a thread named `probe-wd-N`, not after the pool thread that started it, and the pool's
    /// thread list leaves it out.
    @Test func aWatchdogStartedFromThePoolHasItsOwnNameAndIsNoPoolThread() async throws {
        var configuration = WatchdogConfiguration(name: "named-\(UUID())", threshold: .milliseconds(200))
        configuration.metrics = false
        let watchdog = Watchdog(
            watching: .queue(DispatchQueue(label: "probe-threads-test")), configuration: configuration)
        try await Task.detached(priority: .medium) { try watchdog.start() }.value
        defer { watchdog.stop() }
        // Names first: a Probe thread joins `ProbeThreads` before it names itself, so every `probe-wd-`
        // named here is in the set read next, unless it ended in between (other tests' watchdogs
        // start and stop beside this one: read the names again and keep the threads still there).
        let names = threadNames()
        let probeThreads = ProbeThreads.all
        let stillThere = threadNames()
        let watchdogThreads = names.filter { $0.value.hasPrefix("probe-wd-") && stillThere[$0.key] != nil }.map(\.key)
        #expect(!watchdogThreads.isEmpty, "\(names)")
        #expect(watchdogThreads.allSatisfy(probeThreads.contains))
        for tid in probeThreads {
            guard let name = stillThere[tid] else { continue }  // ended since
            #expect(name.hasPrefix("probe-"), "thread \(tid) is called \(name)")
            #expect(name.utf8.count <= 15)
        }
        let pool = CooperativePoolThreads.list(named: [CooperativePoolThreads.defaultPriorityName])
        #expect(pool.allSatisfy { !probeThreads.contains($0.id) }, "\(pool)")
    }

    /// Probe's own frames never make a stall's group: its C functions and Swift modules are not
    /// the app's code.
    @Test func probeFramesAreNeverTheAppsFrames() {
        let module = CommandLine.arguments[0]
        let trampoline = StackFrame(address: 1, symbol: "cprobe_pool_run_job", module: module)
        let pinger = StackFrame(
            address: 2, symbol: "Probe.PingArrivals.arrive(generation: Swift.UInt64) -> ()", module: module)
        let app = StackFrame(address: 3, symbol: "MyApp.handler() -> ()", module: module)
        #expect(!InAppFrames.isInApp(trampoline))
        #expect(!InAppFrames.isInApp(pinger))
        #expect(InAppFrames.isInApp(app))
        #expect(StallBuilder.groupKey([trampoline, app, pinger]) == "MyApp.handler() -> ()")
    }
}
