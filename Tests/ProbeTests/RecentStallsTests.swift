import Foundation
import ProbeRecords
import Testing

@testable import Probe

@Suite struct RecentStallsTests {
    private func frame(_ address: UInt64, _ symbol: String?, module: String? = "/usr/bin/service") -> StackFrame {
        StackFrame(
            address: address, symbol: symbol, symbolOffset: symbol == nil ? nil : 4, module: module,
            buildID: module == nil ? nil : "8f3a", moduleOffset: module == nil ? nil : address - 0x1000)
    }

    private func record(
        _ watchdog: String, stacks: [[StackFrame]], states: [String] = ["R", "R", "S", "D"],
        threads: [ThreadStack]? = nil, groupKey: String = "main.blockTheEventLoop"
    ) -> StallRecord {
        // A call tree root first, as StallBuilder makes it: a frameless root, then each stack outermost first.
        var root = CallTreeNode(frame: nil, count: stacks.count, children: [])
        for stack in stacks {
            var node: CallTreeNode? = nil
            for frame in stack {  // innermost first: build the chain from the leaf up
                node = CallTreeNode(frame: frame, count: 1, children: node.map { [$0] } ?? [])
            }
            root.children.append(node!)
        }
        return StallRecord(
            watchdog: watchdog, threadID: 42, start: Date(timeIntervalSince1970: 1_790_000_000),
            durationNanoseconds: 2.5e8, ongoing: false, thresholdNanoseconds: 1e8, threadCPUNanoseconds: 2.4e8,
            classification: .cpuBound, threadStates: states, sampleCount: stacks.count, unansweredSamples: 1,
            callTree: root, topStack: stacks.first ?? [], groupKey: groupKey, threads: threads)
    }

    @Test func recordsComeBackEqualToTheOnesAdded() {
        let block = [frame(0x1010, "blockTheEventLoop()"), frame(0x2020, "handle(_:)"), frame(0x3030, nil)]
        let sleep = [
            StackFrame(address: 0, symbol: "[syscall nanosleep]"), frame(0x2020, "handle(_:)"),
            frame(0x7f00, "start_thread", module: "/lib/libc.so.6"),
        ]
        let overflow = [StackFrame(address: 0, symbol: "[more distinct stacks than kept]")]
        let pool = [
            ThreadStack(
                threadID: 7, name: "pool-1", threadStates: ["S", "S"], sampleCount: 2, unansweredSamples: 0,
                topStack: sleep),
            ThreadStack(
                threadID: 8, name: nil, threadStates: ["S", "R", "S"], sampleCount: 3, unansweredSamples: 1,
                topStack: []),
        ]
        let added = [
            record("event-loop-0", stacks: [block, block, sleep]),
            record("cooperative-pool", stacks: [sleep, overflow], states: [], threads: pool),
            record("event-loop-1", stacks: [], states: ["S"], groupKey: "[syscall nanosleep]"),
        ]
        var ring = RecentStalls()
        for stall in added { ring.append(stall, capacity: 32) }
        #expect(ring.records == added)
        // Frames repeated within and across records are kept once; the two address-0 frames are distinct.
        #expect(ring.keptFrameCount == Set(([block, sleep, overflow]).flatMap { $0 }).count)
    }

    @Test func threadStatesComeBackInOrder() {
        let many = (0..<300).map { "state-\($0)" }  // more than a byte can index: kept as given
        let lists: [[String]] = [
            [], ["R"], Array(repeating: "S", count: 5_000), ["R", "S", "R", "R", "D", "D", "D", "R"],
            Array(repeating: "R", count: 700) + Array(repeating: "S", count: 3) + ["R"], many,
        ]
        var ring = RecentStalls()
        let added = lists.map { record("loop", stacks: [], states: $0) }
        for stall in added { ring.append(stall, capacity: 32) }
        #expect(ring.records.map(\.threadStates) == lists)
    }

    @Test func keepsTheLatestCapacityRecords() {
        var ring = RecentStalls()
        let stalls = (0..<5).map { record("loop-\($0)", stacks: [[frame(0x1000 + UInt64($0), "f\($0)")]]) }
        for stall in stalls { ring.append(stall, capacity: 3) }
        #expect(ring.records == Array(stalls.suffix(3)))
        ring.append(stalls[0], capacity: 0)  // at least one is kept
        #expect(ring.records == [stalls[0]])
    }

    @Test func framesAndGroupKeysOfDroppedRecordsAreLetGo() {
        var ring = RecentStalls()
        var stalls: [StallRecord] = []
        for index in 0..<200 {
            // Three frames of this record's own, and one all records share.
            let own = (0..<3).map { frame(UInt64(0x10_0000 + index * 16 + $0), "f\(index)_\($0)") }
            stalls.append(record("loop", stacks: [own + [frame(0x9999, "main")]], groupKey: "f\(index)_0"))
            ring.append(stalls[index], capacity: 4)
            #expect(ring.keptFrameCount <= 2 * 4 * 3 + 1)
            #expect(ring.keptGroupKeyCount <= 2 * 4)
        }
        #expect(ring.records == Array(stalls.suffix(4)))
    }
}
