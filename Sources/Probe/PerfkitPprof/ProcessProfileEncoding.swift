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
        var tables = ProfileTables()
        var encoded: [PprofProfile.Sample] = []
        encoded.reserveCapacity(samples.count)
        for sample in samples {
            let locationIDs = sample.frames.map { tables.location(of: ProfileFrame($0, keepingOrigin: true)) }
            encoded.append(PprofProfile.Sample(locationIDs: locationIDs, values: sample.values, labels: sample.labels))
        }
        var profile = PprofProfile(sampleTypes: sampleTypes)
        profile.samples = encoded
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
