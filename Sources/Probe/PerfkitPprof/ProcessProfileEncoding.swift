import Foundation
import ProbeRecords

/// Whole-process profiles (Probe's `ProcessProfiler`) and thread dumps as pprof: each sample a
/// symbolicated stack (leaf first) with its values and labels, placed in the same location,
/// function and mapping tables as stall profiles (``StallProfile``), so both read alike in pprof.
package enum ProcessProfileEncoding {
    /// One distinct stack of one thread and what its samples add up to.
    package struct Sample {
        /// Innermost first; a frame at address 0 with a symbol (`[syscall read]`) is a stand-in
        /// with no mapping.
        package var frames: [StackFrame]
        /// One per sample type, in the profile's order.
        package var values: [Int64]
        package var labels: [PprofProfile.Label]

        package init(frames: [StackFrame], values: [Int64], labels: [PprofProfile.Label]) {
            self.frames = frames
            self.values = values
            self.labels = labels
        }
    }

    /// The profile of `samples`: `sampleTypes` name their values, the last is the default (as Go's
    /// CPU profiles: `samples/count`, then `cpu/nanoseconds`); one sample stands for `period`.
    package static func profile(
        _ samples: [Sample], sampleTypes: [PprofProfile.ValueType], periodType: PprofProfile.ValueType?,
        period: Int64, timeNanos: Int64, durationNanos: Int64, comments: [String]
    ) -> PprofProfile {
        var builder = Builder()
        for sample in samples { builder.add(sample) }
        return builder.profile(
            sampleTypes: sampleTypes, periodType: periodType, period: period, timeNanos: timeNanos,
            durationNanos: durationNanos, comments: comments)
    }

    /// A profile made one sample at a time: it keeps the tables and each sample's location ids, not
    /// its frames, so a caller with many stacks never holds all their frames at once (a heap profile's
    /// sites did: up to 8,192 stacks of 64 frames, megabytes freed again into malloc's arenas).
    package struct Builder {
        private var tables = ProfileTables()
        private var samples: [PprofProfile.Sample] = []

        package init() {}

        package mutating func add(_ sample: Sample) {
            let locationIDs = sample.frames.map { tables.location(of: ProfileFrame($0, keepingOrigin: true)) }
            samples.append(PprofProfile.Sample(locationIDs: locationIDs, values: sample.values, labels: sample.labels))
        }

        /// The profile of the samples added, as ``ProcessProfileEncoding/profile(_:sampleTypes:periodType:period:timeNanos:durationNanos:comments:)``.
        /// Mutating: it finishes the builder's own tables rather than a copy of them.
        package mutating func profile(
            sampleTypes: [PprofProfile.ValueType], periodType: PprofProfile.ValueType?, period: Int64,
            timeNanos: Int64, durationNanos: Int64, comments: [String]
        ) -> PprofProfile {
            var profile = PprofProfile(sampleTypes: sampleTypes)
            profile.samples = samples
            profile.mappings = tables.finishMappings()
            profile.locations = tables.locations
            profile.functions = tables.functions
            profile.periodType = periodType
            profile.period = period
            profile.timeNanos = timeNanos
            profile.durationNanos = durationNanos
            profile.comments = comments
            profile.defaultSampleType = sampleTypes.last?.type
            return profile
        }
    }
}
