import CProbe
import Foundation
import PerfReport

/// Turns one stall episode's raw samples into a `StallRecord`: symbolicated stacks aggregated
/// into a call tree, the most frequent stack, a group key and a classification.
enum StallBuilder {
    static func record(
        for episode: StallEpisode, watchdog: String, threshold: UInt64, ongoing: Bool, now: UInt64,
        symbolicator: Symbolicator
    ) -> StallRecord {
        let elapsed = now.saturatingSubtract(episode.busySince)
        let duration = elapsed > episode.excused ? elapsed - episode.excused : 0
        let start = Date().addingTimeInterval(-Double(elapsed) / 1e9)
        if episode.isPoolStarvation {
            return poolStarvationRecord(
                for: episode, watchdog: watchdog, threshold: threshold, ongoing: ongoing, start: start,
                duration: duration, symbolicator: symbolicator)
        }
        let tid = episode.threadID ?? 0

        var cpu: Double?
        if let before = episode.cpuAtFirstSeen, let after = ThreadInfo.cpuNanoseconds(of: tid), after >= before {
            cpu = Double(after - before)
        }
        let observedWall = Double(max(1, now.saturatingSubtract(episode.firstSeen)))
        let states = episode.samples.map(\.state)
        // A queue nobody drained during the whole stall was waiting for a worker thread.
        let classification =
            episode.threadID == nil ? .starved : classify(cpu: cpu, wall: observedWall, states: states)

        let stacks = symbolicatedStacks(episode.samples, symbolicator: symbolicator)
        let tree = callTree(stacks)
        let top = mostFrequent(stacks)
        return StallRecord(
            watchdog: watchdog, threadID: tid, start: start, durationNanoseconds: Double(duration), ongoing: ongoing,
            thresholdNanoseconds: Double(threshold), threadCPUNanoseconds: cpu, classification: classification,
            threadStates: states, sampleCount: episode.samples.count,
            unansweredSamples: episode.samples.count { $0.stack == nil && $0.syscall == nil }, callTree: tree,
            topStack: top,
            groupKey: groupKey(top))
    }

    /// A starvation of the cooperative pool: every pool thread's samples merged into the call
    /// tree and the dominant stack, and each thread's own most frequent stack in `threads`.
    /// Always `starved`: no pool thread could start new work for the whole stall, whatever kept
    /// them (their states say whether they waited or computed).
    private static func poolStarvationRecord(
        for episode: StallEpisode, watchdog: String, threshold: UInt64, ongoing: Bool, start: Date, duration: UInt64,
        symbolicator: Symbolicator
    ) -> StallRecord {
        let perThread = episode.poolThreads.map { thread in
            (thread: thread, stacks: symbolicatedStacks(thread.samples, symbolicator: symbolicator))
        }
        let stacks = perThread.flatMap(\.stacks)
        let top = mostFrequent(stacks)
        let topKey = top.map(functionKey)
        let threads = perThread.map { entry in
            ThreadStack(
                threadID: entry.thread.thread.id, name: entry.thread.thread.name,
                threadStates: entry.thread.samples.map(\.state), sampleCount: entry.thread.samples.count,
                unansweredSamples: entry.thread.samples.count { $0.stack == nil && $0.syscall == nil },
                topStack: mostFrequent(entry.stacks))
        }
        let dominant = threads.first { $0.topStack.map(functionKey) == topKey } ?? threads.first
        let samples = episode.poolThreads.flatMap(\.samples)
        return StallRecord(
            watchdog: watchdog, threadID: dominant?.threadID ?? 0, start: start,
            durationNanoseconds: Double(duration), ongoing: ongoing, thresholdNanoseconds: Double(threshold),
            threadCPUNanoseconds: nil, classification: .starved, threadStates: samples.map(\.state),
            sampleCount: samples.count, unansweredSamples: threads.reduce(0) { $0 + $1.unansweredSamples },
            callTree: callTree(stacks), topStack: top, groupKey: groupKey(top), threads: threads)
    }

    /// The samples' stacks, symbolicated; a sample left unsignalled in a sleep stands for its
    /// syscall, an unanswered one is left out.
    static func symbolicatedStacks(_ samples: [StallSample], symbolicator: Symbolicator) -> [[StackFrame]] {
        samples.compactMap { sample -> [StackFrame]? in
            if let stack = sample.stack { return symbolicator.symbolicate(stack: stack) }
            // Not signalled, to keep its sleep intact: the syscall stands in for the stack.
            return sample.syscall.map { [StackFrame(address: 0, symbol: "[syscall \($0)]")] }
        }
    }

    /// CPU-bound: CPU time close to wall time. Blocked: asleep or in disk wait with little CPU.
    /// Starved: runnable ("R") yet given little CPU.
    static func classify(cpu: Double?, wall: Double, states: [String]) -> StallRecord.Classification {
        let running = states.count { $0 == "R" }
        let waiting = states.count { $0 == "S" || $0 == "D" }
        guard let cpu else {
            if states.isEmpty { return .unknown }
            return waiting * 2 > states.count ? .blocked : .unknown
        }
        let ratio = cpu / wall
        if ratio >= 0.6 { return .cpuBound }
        if states.isEmpty { return ratio < 0.2 ? .blocked : .unknown }
        if running * 2 > states.count { return .starved }
        if waiting * 2 > states.count || ratio < 0.2 { return .blocked }
        return .unknown
    }

    /// What identifies a frame when samples are merged: the function, not the exact address.
    static func functionKey(_ frame: StackFrame) -> String {
        if let symbol = frame.symbol { return symbol }
        if let module = frame.module, let offset = frame.moduleOffset {
            let name = module.split(separator: "/").last.map(String.init) ?? module
            return "\(name)+0x\(String(offset, radix: 16))"
        }
        return "0x" + String(frame.address, radix: 16)
    }

    private final class Node {
        var frame: StackFrame?
        var count = 0
        var children: [String: Node] = [:]
        var order: [String] = []
        init(frame: StackFrame?) { self.frame = frame }

        func child(_ frame: StackFrame) -> Node {
            let key = functionKey(frame)
            if let existing = children[key] { return existing }
            let node = Node(frame: frame)
            children[key] = node
            order.append(key)
            return node
        }

        func freeze() -> CallTreeNode {
            let sorted = order.compactMap { children[$0] }.sorted { $0.count > $1.count }
            return CallTreeNode(frame: frame, count: count, children: sorted.map { $0.freeze() })
        }
    }

    /// Samples merged root first; each node counts the samples that passed through it.
    static func callTree(_ stacks: [[StackFrame]]) -> CallTreeNode? {
        guard !stacks.isEmpty else { return nil }
        let root = Node(frame: nil)
        for stack in stacks {
            root.count += 1
            var node = root
            for frame in stack.reversed() {
                node = node.child(frame)
                node.count += 1
            }
        }
        return root.freeze()
    }

    /// The stack seen most often (by function names), innermost first.
    static func mostFrequent(_ stacks: [[StackFrame]]) -> [StackFrame] {
        var counts: [[String]: (count: Int, first: Int)] = [:]
        for (index, stack) in stacks.enumerated() {
            let key = stack.map(functionKey)
            counts[key, default: (0, index)].count += 1
        }
        guard let best = counts.max(by: { ($0.value.count, -$0.value.first) < ($1.value.count, -$1.value.first) })
        else { return [] }
        return stacks[best.value.first]
    }

    /// Stalls with the same innermost frames of the program's own code share a key (see
    /// ``InAppFrames``): the same app function stalling in different system calls is one group.
    static func groupKey(_ stack: [StackFrame]) -> String {
        let names = InAppFrames.groupingFrames(stack, limit: 5).map(functionKey)
        return names.isEmpty ? "no-stack" : names.joined(separator: " <- ")
    }
}
