import Foundation
import PerfkitPprof
import ProbeRecords

/// What a whole-process profile adds up while it is taken — each distinct stack of each thread
/// with its sample count and value, and the samples not taken — and its encoding as pprof.
/// Plain data: the wall sampler (``ProcessSampling``) and the cpu sampler (``CPUTimerSampling``) fill it.
package struct ProfileSamples {
    /// A distinct stack of one thread (an index into the sampler's threads; ``unknownThread`` when
    /// the thread is not known), with a stand-in leaf (`[syscall read]`, `[not sampled: …]`) and the
    /// stall it fell in (``StallWindows``).
    struct Key: Hashable {
        var thread: Int
        var stack: [UInt]
        var leaf: String?
        var stall: String? = nil
    }

    /// A thread as the profile's labels name it.
    struct Thread {
        var tid: Int32
        var name: String
    }

    static let unknownThread = -1

    private(set) var counts: [Key: (samples: Int64, value: Int64)] = [:]
    private(set) var failures: [ProcessProfiler.SampleFailure: Int] = [:]
    /// Samples taken (failures not included).
    private(set) var taken = 0

    mutating func add(_ value: Int64, samples: Int64, to key: Key) {
        var entry = counts[key] ?? (0, 0)
        entry.samples += samples
        entry.value += value
        counts[key] = entry
    }

    /// A sample taken: `samples` of them on `key` worth `value` in all.
    mutating func took(_ value: Int64, samples: Int64 = 1, on key: Key) {
        taken += Int(samples)
        add(value, samples: samples, to: key)
    }

    /// `count` samples of `thread` not taken, for `failure`: counted, and their `value` stands
    /// under a `[not sampled: …]` leaf so the profile's totals still hold the time.
    mutating func failed(_ failure: ProcessProfiler.SampleFailure, count: Int = 1, value: Int64, thread: Int) {
        guard count > 0 || value > 0 else { return }
        failures[failure, default: 0] += count
        add(value, samples: Int64(count), to: Key(thread: thread, stack: [], leaf: Self.notSampledLeaf(failure)))
    }

    /// A failure counted whose time stays where it was recorded (an off-CPU wait without its stack).
    mutating func counted(_ failure: ProcessProfiler.SampleFailure) { failures[failure, default: 0] += 1 }

    static func notSampledLeaf(_ failure: ProcessProfiler.SampleFailure) -> String {
        "[not sampled: \(failure.rawValue)]"
    }

    /// `sample_failures: signal-blocked=3 exited=1`, or `sample_failures: none`.
    static func failureComment(_ failures: [ProcessProfiler.SampleFailure: Int]) -> String {
        let parts = failures.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }
        return "sample_failures: " + (parts.isEmpty ? "none" : parts.joined(separator: " "))
    }

    /// `thread` (the name), `thread_kind` (`event-loop`, `pool`, `other`) and `thread_id`.
    package static func labels(name: String, tid: Int32) -> [PprofProfile.Label] {
        [
            .init(key: "thread", value: .string(name)),
            .init(key: "thread_kind", value: .string(threadKind(ofThreadNamed: name, tid: tid).rawValue)),
            .init(key: "thread_id", value: .number(Int64(tid), unit: nil)),
        ]
    }

    /// SwiftNIO names its event-loop threads `NIO-ELT-<group>-#<n>` (`NIO-SGLTN-<group>-#<n>` for
    /// `MultiThreadedEventLoopGroup.singleton`'s); the cooperative pool's are libdispatch's root-queue
    /// workers, named after the queue label's end (`oot.default-qos`), or unnamed threads met running
    /// pool work (``CooperativePoolThreads``) or a job through Probe's hook (tid 0: by name only).
    static func threadKind(ofThreadNamed name: String, tid: Int32 = 0) -> ProfileRequest.ThreadKind {
        if name.hasPrefix("NIO-ELT") || name.hasPrefix("NIO-SGLTN") { return .eventLoop }
        if name == CooperativePoolThreads.defaultPriorityName || name.hasSuffix("-qos") { return .pool }
        if tid != 0 && (CooperativePoolThreads.contains(tid: tid, name: name) || PoolJobs.threads().contains(tid)) {
            return .pool
        }
        return .other
    }

    /// The profile, symbolicated and encoded: `samples/count` and `<mode>/nanoseconds`, period
    /// `interval`, the failures in a comment after `summary`.
    func profile(
        mode: ProfileRequest.Mode, interval: UInt64, threads: [Thread], start: Date, durationNanos: UInt64,
        summary: String, symbolicator: Symbolicator
    ) -> ProcessProfiler.Profile {
        let valueType = PprofProfile.ValueType(type: mode.rawValue, unit: "nanoseconds")
        var labelsByThread: [Int: [PprofProfile.Label]] = [:]
        let samples = counts.map { key, entry in
            var frames = symbolicator.symbolicate(stack: key.stack)
            if let leaf = key.leaf { frames.insert(StackFrame(address: 0, symbol: leaf), at: 0) }
            if labelsByThread[key.thread] == nil {
                let thread = threads.indices.contains(key.thread) ? threads[key.thread] : Thread(tid: 0, name: "?")
                labelsByThread[key.thread] = Self.labels(name: thread.name, tid: thread.tid)
            }
            var labels = labelsByThread[key.thread]!
            if let stall = key.stall { labels.append(.init(key: "stall_id", value: .string(stall))) }
            return ProcessProfileEncoding.Sample(frames: frames, values: [entry.samples, entry.value], labels: labels)
        }
        let profile = ProcessProfileEncoding.profile(
            samples, sampleTypes: [PprofProfile.ValueType(type: "samples", unit: "count"), valueType],
            periodType: valueType, period: Int64(interval),
            timeNanos: Int64((start.timeIntervalSince1970 * 1e9).rounded()), durationNanos: Int64(durationNanos),
            comments: [summary, Self.failureComment(failures)])
        return ProcessProfiler.Profile(pprof: profile.encoded(), sampleCount: taken, failures: failures)
    }
}
