/// Instructions by function (callgrind's counts of one benchmark operation) as a pprof profile, so
/// that `go tool pprof -top -diff_base base.pb.gz new.pb.gz` lists the functions that grew.
extension PprofProfile {
    /// Sample type `instructions`/`count`, one sample per stack (frames outermost first, each a
    /// function name; the last frame's own instructions), values per operation rounded to whole
    /// instructions so that each function's stacks still add up to its rounded total (`flat` stays
    /// exact to the instruction); `comment` says what was measured (the benchmark and the side).
    public static func instructions(stacks: [(frames: [String], value: Double)], comment: String) -> PprofProfile {
        byFunction(stacks: stacks, sampleType: ValueType(type: "instructions", unit: "count"), comment: comment)
    }

    /// ``instructions(stacks:comment:)`` for sampled CPU time per operation, in nanoseconds.
    public static func cpuTime(stacks: [(frames: [String], value: Double)], comment: String) -> PprofProfile {
        byFunction(stacks: stacks, sampleType: ValueType(type: "cpu", unit: "nanoseconds"), comment: comment)
    }

    static func byFunction(
        stacks: [(frames: [String], value: Double)], sampleType: ValueType, comment: String
    ) -> PprofProfile {
        var profile = PprofProfile(sampleTypes: [sampleType])
        profile.comments = [comment]
        profile.defaultSampleType = sampleType.type
        var ids: [String: UInt64] = [:]
        func location(_ name: String) -> UInt64 {
            if let id = ids[name] { return id }
            let id = UInt64(ids.count + 1)
            ids[name] = id
            profile.functions.append(Function(id: id, name: name, systemName: name))
            profile.locations.append(Location(id: id, mappingID: 0, address: 0, lines: [Line(functionID: id)]))
            return id
        }
        // Per leaf function, in first-seen order: its stacks' rounded values add up to its rounded total.
        var leaves: [String] = []
        var byLeaf: [String: [(frames: [String], value: Double)]] = [:]
        for stack in stacks where !stack.frames.isEmpty && stack.value > 0 {
            let leaf = stack.frames[stack.frames.count - 1]
            if byLeaf[leaf] == nil { leaves.append(leaf) }
            byLeaf[leaf, default: []].append(stack)
        }
        for leaf in leaves {
            let group = byLeaf[leaf]!
            var left = Int64(group.reduce(0) { $0 + $1.value }.rounded())
            for (position, stack) in group.enumerated() {
                let share = position == group.count - 1 ? left : Int64(stack.value.rounded())
                left -= share
                guard share != 0 else { continue }
                profile.samples.append(Sample(locationIDs: stack.frames.reversed().map(location), values: [share]))
            }
        }
        return profile
    }
}
