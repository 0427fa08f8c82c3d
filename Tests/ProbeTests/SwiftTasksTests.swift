import CProbe
import Foundation
import Synchronization
import Testing

@testable @_spi(Benchmarks) import Probe

/// Requests parked on continuations nobody resumes until the test says so.
final class ParkingLot: Sendable {
    private let parked = Mutex<[CheckedContinuation<Void, Never>]>([])

    var count: Int { parked.withLock { $0.count } }

    @inline(never) func park() async {
        await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
    }

    func releaseAll() {
        for continuation in parked.withLock({ list in
            defer { list = [] }
            return list
        }) { continuation.resume() }
    }
}

struct ParkedRepository {
    @inline(never) func waitForRow(_ lot: ParkingLot) async {
        await lot.park()
        blackHoleForProbeTest(4)
    }
}

struct ParkedService {
    @inline(never) func loadOrder(_ lot: ParkingLot) async {
        await ParkedRepository().waitForRow(lot)
        blackHoleForProbeTest(5)
    }
}

@inline(never) func handleParkedRequest(_ lot: ParkingLot) async {
    await ParkedService().loadOrder(lot)
    blackHoleForProbeTest(6)
}

@Suite(.serialized)
struct SwiftTasksTests {
    /// A thousand requests parked at the same await are one entry ×1000 in the dump, suspended on a
    /// continuation, with the await site and its callers up to the request handler.
    @Test func parkedTasksAreOneGroupWithTheirAwaitSiteAndCallers() async throws {
        FramePointerCode.publish()
        let lot = ParkingLot()
        for _ in 0..<1000 { Task.detached { await handleParkedRequest(lot) } }
        defer { lot.releaseAll() }
        for _ in 0..<500 where lot.count < 1000 { try await Task.sleep(for: .milliseconds(20)) }
        try #require(lot.count == 1000, "\(lot.count) of 1000 tasks parked in 10 s")
        let dump = SwiftTasks.dump()
        #expect(dump.note == nil, "\(dump.note ?? "")")
        let group = try #require(dump.groups.first { $0.ids.count >= 1000 }, "\(dump.summary)")
        #expect(group.ids.count == 1000)
        #expect(Set(group.ids).count == 1000)
        #expect(
            group.state == .suspended && group.waitingOn == "continuation", "\(group.state) \(group.waitingOn ?? "")")
        let frames = Symbolicator.shared.symbolicate(stack: group.stack)
        let text = frames.map { "\($0.async == true ? "[async] " : "")\($0.functionName)" }.joined(separator: "\n")
        #expect(frames.allSatisfy { $0.async == true }, "\(text)")
        var position = 0
        for name in [
            "ParkingLot.park", "ParkedRepository.waitForRow", "ParkedService.loadOrder", "handleParkedRequest",
        ] {
            guard let found = frames[position...].firstIndex(where: { $0.functionName.contains(name) }) else {
                Issue.record("\(name) missing after frame \(position):\n\(text)")
                return
            }
            position = found + 1
        }
        // The thread dump lists them the same way, after the threads.
        let dumpText = ProcessProfiler().threadDumpText()
        #expect(dumpText.contains("[suspended, waiting on continuation] ×1000:"), "\(dumpText.suffix(3000))")
    }

    /// A task that has not run yet is listed by the function it will start with; one running is
    /// listed as running.
    @Test func aRunningTaskIsListedAsRunning() async throws {
        let thread = SpinningThread(task: { await spinInATask($0) })
        defer { thread.finish() }
        let dump = SwiftTasks.dump()
        #expect(dump.groups.contains { $0.state == .running }, "\(dump.summary)")
    }

    /// A layout the reader does not know is said, not guessed at.
    @Test func theRuntimeIsFoundAndItsLayoutKnown() throws {
        let runtime = try SwiftTasks.runtime.get()
        #expect(runtime.taskMetadata != 0)
        #expect(runtime.notStartedAdapters.count == 2 && runtime.waitAdapters.count == 2)
    }
}
