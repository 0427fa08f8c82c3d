import Foundation
import PerfReport
import Synchronization
import Testing

@testable import Probe

/// Starvation of Swift concurrency's cooperative pool. The scenarios run in `probe-test-helper`,
/// a process of its own, because in this one other tests occupy pool threads at random.
@Suite(.serialized)
struct CooperativePoolTests {
    /// Runs the helper in `mode`; returns its output and the stalls it wrote.
    func runHelper(_ mode: String) throws -> (output: String, stalls: [StallRecord]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-pool-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtExecutable("probe-test-helper"))
        process.arguments = [mode, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
        let stalls = try lines.map { try decoder.decode(StallRecord.self, from: Data($0.utf8)) }
        return (text, stalls)
    }

    /// Every pool thread blocked in a semaphore wait inside a task for 600 ms: one stall,
    /// `starved`, with the stack of each blocked thread naming the waiting function.
    @Test func blockingEveryPoolThreadIsOneStarvationWithEachThreadsStack() throws {
        let (output, stalls) = try runHelper("starve-pool")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("blocked=") }, "\(output)")
        let blocked = Set(line.dropFirst("blocked=".count).split(separator: ",").compactMap { Int32($0) })
        #expect(blocked.count == ProcessInfo.processInfo.activeProcessorCount)

        try #require(stalls.count == 1, "\(stalls.map { ($0.classification, $0.durationNanoseconds) })")
        let stall = stalls[0]
        #expect(stall.classification == .starved)
        #expect(stall.watchdog == "cooperative-pool")
        #expect(stall.durationNanoseconds >= 400e6)
        #expect(!stall.ongoing)
        let threads = try #require(stall.threads)
        #expect(blocked.isSubset(of: Set(threads.map(\.threadID))), "\(threads.map(\.threadID)) vs \(blocked)")
        #expect(blocked.contains(stall.threadID))
        for thread in threads where blocked.contains(thread.threadID) {
            let names = thread.topStack.compactMap(\.symbol)
            #expect(names.contains { $0.contains("waitInsideTaskInHelper") }, "thread \(thread.threadID): \(names)")
            #expect(thread.threadStates.allSatisfy { $0 == "S" }, "\(thread.threadStates)")
        }
        #expect(stall.topStack.compactMap(\.symbol).contains { $0.contains("waitInsideTaskInHelper") })
        #expect(stall.sampleCount == threads.reduce(0) { $0 + $1.sampleCount })
    }

    /// A pool doing light work never starves.
    @Test func idlePoolHasNoStall() throws {
        let (output, stalls) = try runHelper("idle-pool")
        #expect(stalls.isEmpty, "\(stalls)")
        #expect(output.contains("stalls=0"), "\(output)")
    }

    /// The pool's threads are found by name: a default-priority task runs on a thread whose name
    /// is the one Probe knows, and listing the pool finds that thread.
    @Test func poolThreadsAreFoundByTheirName() async throws {
        let seen = await Task.detached(priority: CooperativePoolPinger.priority) {
            (StackSampler.currentThreadID, CooperativePoolThreads.currentThreadName())
        }.value
        #expect(seen.1 == CooperativePoolThreads.defaultPriorityName)
        let pool = CooperativePoolThreads.list(named: [CooperativePoolThreads.defaultPriorityName])
        #expect(pool.contains { $0.id == seen.0 }, "\(pool)")
    }
}
