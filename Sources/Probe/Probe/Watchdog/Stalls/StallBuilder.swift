import CProbe
import Foundation
import ProbeRecords

/// Turns one stall episode's samples into a `StallRecord`: the distinct stacks symbolicated once
/// each and merged into a call tree with their counts, the most frequent stack, a group key and
/// a classification.
enum StallBuilder {
    static func record(
        for episode: StallEpisode, watchdog: String, threshold: UInt64, ongoing: Bool, now: UInt64,
        cpuNow: Int64?, symbolicator: Symbolicator
    ) -> StallRecord {
        var record = stallRecord(
            for: episode, watchdog: watchdog, threshold: threshold, ongoing: ongoing, now: now, cpuNow: cpuNow,
            symbolicator: symbolicator)
        record.asyncCallers = AsyncChains.unavailable
        return record
    }

    private static func stallRecord(
        for episode: StallEpisode, watchdog: String, threshold: UInt64, ongoing: Bool, now: UInt64,
        cpuNow: Int64?, symbolicator: Symbolicator
    ) -> StallRecord {
        let elapsed = now.saturatingSubtract(episode.busySince)
        let duration = elapsed > episode.excused ? elapsed - episode.excused : 0
        let start = episode.startDate
        if episode.isPoolStarvation {
            return poolStarvationRecord(
                for: episode, watchdog: watchdog, threshold: threshold, ongoing: ongoing, start: start,
                duration: duration, symbolicator: symbolicator)
        }
        let tid = episode.threadID ?? 0

        var cpu: Double?
        if let before = episode.cpuAtFirstSeen, let after = cpuNow, after >= before {
            cpu = Double(after - before)
        }
        let observedWall = Double(max(1, now.saturatingSubtract(episode.firstSeen)))
        let states = episode.samples.states
        // A queue nobody drained during the whole stall was waiting for a worker thread.
        let classification =
            episode.threadID == nil ? .starved : classify(cpu: cpu, wall: observedWall, states: states)

        let stacks = symbolicatedStacks(episode.samples, symbolicator: symbolicator)
        let tree = callTree(stacks)
        let top = mostFrequent(stacks)
        return StallRecord(
            watchdog: watchdog, threadID: tid, start: start, durationNanoseconds: Double(duration), ongoing: ongoing,
            thresholdNanoseconds: Double(threshold), threadCPUNanoseconds: cpu, classification: classification,
            threadStates: states, sampleCount: episode.samples.sampleCount,
            unansweredSamples: episode.samples.unanswered, callTree: tree, topStack: top, groupKey: groupKey(top),
            sampledNanoseconds: sampled(episode.samples),
            waitingIn: classification == .blocked ? episode.samples.mostCommonWait : nil)
    }

    private static func sampled(_ samples: ThreadSamples) -> Double? {
        samples.sampleCount == 0 ? nil : Double(samples.sampledNanoseconds)
    }

    /// A starvation of the cooperative pool: every pool thread's samples merged into the call
    /// tree and the dominant stack, and each thread's own most frequent stack in `threads`.
    /// Always `starved`: no pool thread could start new work for the whole stall, whatever kept
    /// them (their states say whether they waited or computed).
    private static func poolStarvationRecord(
        for episode: StallEpisode, watchdog: String, threshold: UInt64, ongoing: Bool, start: Date, duration: UInt64,
        symbolicator: Symbolicator
    ) -> StallRecord {
        // Probe's own threads never count; a Dispatch worker parked waiting for work is not what
        // holds the pool, so it is left out too (unless every thread was parked).
        let sampledThreads = episode.poolThreads.filter { !ProbeThreads.contains($0.thread.id) }.map { thread in
            (thread: thread, stacks: symbolicatedStacks(thread.samples, symbolicator: symbolicator))
        }
        let working = sampledThreads.filter { !PoolWorkerIdle.isParked(mostFrequent($0.stacks)) }
        let perThread = working.isEmpty ? sampledThreads : working
        let stacks = perThread.flatMap(\.stacks)
        let top = mostFrequent(stacks)
        let topKey = top.map(functionKey)
        let threads = perThread.map { entry in
            ThreadStack(
                threadID: entry.thread.thread.id, name: entry.thread.thread.name,
                threadStates: entry.thread.samples.states, sampleCount: entry.thread.samples.sampleCount,
                unansweredSamples: entry.thread.samples.unanswered, topStack: mostFrequent(entry.stacks))
        }
        let dominant = threads.first { $0.topStack.map(functionKey) == topKey } ?? threads.first
        let states = perThread.flatMap(\.thread.samples.states)
        let sampledNanoseconds = perThread.map(\.thread.samples.sampledNanoseconds).max()
        return StallRecord(
            watchdog: watchdog, threadID: dominant?.threadID ?? 0, start: start,
            durationNanoseconds: Double(duration), ongoing: ongoing, thresholdNanoseconds: Double(threshold),
            threadCPUNanoseconds: nil, classification: .starved, threadStates: states,
            sampleCount: states.count, unansweredSamples: threads.reduce(0) { $0 + $1.unansweredSamples },
            callTree: callTree(stacks), topStack: top, groupKey: groupKey(top), threads: threads,
            sampledNanoseconds: states.isEmpty ? nil : sampledNanoseconds.map { Double($0) })
    }

    /// A distinct stack with the number of samples that saw it.
    typealias WeightedStack = (frames: [StackFrame], count: Int)

    /// The distinct stacks, symbolicated once each; a sleep that was neither signalled nor
    /// unwound stands as its syscall. Samples past the distinct-stack limit stand as one frame.
    static func symbolicatedStacks(_ samples: ThreadSamples, symbolicator: Symbolicator) -> [WeightedStack] {
        var stacks: [WeightedStack] = samples.weighted.map { seen, count in
            switch seen {
            case .stack(let pcs): return (symbolicator.symbolicate(stack: pcs), count)
            case .syscall(let name): return ([StackFrame(address: 0, symbol: "[syscall \(name)]")], count)
            }
        }
        if samples.overflow > 0 {
            stacks.append(([StackFrame(address: 0, symbol: "[more distinct stacks than kept]")], samples.overflow))
        }
        return stacks
    }

    /// From the thread's states at its samples: CPU-bound when it was running or runnable ("R")
    /// at most of them — a thread waiting for a CPU that other processes took is still busy with
    /// the service's code, so the CPU-time ratio, which depends on the neighbours, does not decide
    /// it; blocked when asleep or in disk wait ("S", "D") at most of them. Without samples, the
    /// CPU time decides: close to the wall time CPU-bound, close to zero blocked. `starved` is
    /// never decided here: it is for work that found no thread at all (a whole pool taken, a queue
    /// nobody drained).
    static func classify(cpu: Double?, wall: Double, states: [String]) -> StallRecord.Classification {
        let running = states.count { $0 == "R" }
        let waiting = states.count { $0 == "S" || $0 == "D" }
        if running * 2 > states.count { return .cpuBound }
        if waiting * 2 > states.count { return .blocked }
        guard let cpu else { return .unknown }
        let ratio = cpu / wall
        if ratio >= 0.6 { return .cpuBound }
        if ratio < 0.2 { return .blocked }
        return .unknown
    }

    /// What identifies a frame when samples are merged: the function, not the exact address.
    static func functionKey(_ frame: StackFrame) -> String { frame.functionName }

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
    static func callTree(_ stacks: [WeightedStack]) -> CallTreeNode? {
        guard !stacks.isEmpty else { return nil }
        let root = Node(frame: nil)
        for (stack, count) in stacks {
            root.count += count
            var node = root
            for frame in stack.reversed() {
                node = node.child(frame)
                node.count += count
            }
        }
        return root.freeze()
    }

    /// The stack seen most often (by function names), innermost first.
    static func mostFrequent(_ stacks: [WeightedStack]) -> [StackFrame] {
        var counts: [[String]: (count: Int, first: Int)] = [:]
        for (index, stack) in stacks.enumerated() {
            let key = stack.frames.map(functionKey)
            counts[key, default: (0, index)].count += stack.count
        }
        guard let best = counts.max(by: { ($0.value.count, -$0.value.first) < ($1.value.count, -$1.value.first) })
        else { return [] }
        return stacks[best.value.first].frames
    }

    /// Stalls with the same innermost frames of the program's own code share a key (see
    /// ``InAppFrames``): the same app function stalling in different system calls is one group.
    static func groupKey(_ stack: [StackFrame]) -> String {
        let names = InAppFrames.groupingFrames(stack, limit: 5).map(functionKey)
        return names.isEmpty ? "no-stack" : names.joined(separator: " <- ")
    }
}
