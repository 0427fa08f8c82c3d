/// Instructions by function (callgrind's counts of one benchmark operation) as a pprof profile, so
/// that `go tool pprof -top -diff_base base.pb.gz new.pb.gz` lists the functions that grew.
///
/// Only call edges are known, not whole stacks, so each function's exclusive instructions become
/// 2-frame stacks `[function, caller]`, split among its callers in proportion to the edges'
/// inclusive instructions (a function with no known caller gets a 1-frame stack): `flat` is each
/// function's exclusive count exactly; `cum` reaches one caller up, not the whole tree.
extension PprofProfile {
    /// One function: its name and exclusive instructions per operation.
    public struct CountedFunction: Sendable {
        public var name: String
        public var exclusive: Double

        public init(name: String, exclusive: Double) {
            self.name = name
            self.exclusive = exclusive
        }
    }

    /// A call between two of the functions (indexes), with the callee's inclusive instructions in it.
    public struct CountedCall: Sendable {
        public var caller: Int
        public var callee: Int
        public var inclusive: Double

        public init(caller: Int, callee: Int, inclusive: Double) {
            self.caller = caller
            self.callee = callee
            self.inclusive = inclusive
        }
    }

    /// Sample type `instructions`/`count`, values per operation rounded to whole instructions;
    /// `comment` says what was measured (e.g. the benchmark and the side).
    public static func instructions(
        functions: [CountedFunction], calls: [CountedCall], comment: String
    ) -> PprofProfile {
        var profile = PprofProfile(sampleTypes: [ValueType(type: "instructions", unit: "count")])
        profile.comments = [comment]
        profile.defaultSampleType = "instructions"
        for (index, function) in functions.enumerated() {
            let id = UInt64(index + 1)
            profile.functions.append(Function(id: id, name: function.name, systemName: function.name))
            profile.locations.append(Location(id: id, mappingID: 0, address: 0, lines: [Line(functionID: id)]))
        }
        for (index, function) in functions.enumerated() where function.exclusive > 0 {
            let callers = calls.filter {
                $0.callee == index && $0.caller != index && functions.indices.contains($0.caller)
            }
            let spent = callers.reduce(0.0) { $0 + $1.inclusive }
            let leaf = UInt64(index + 1)
            guard spent > 0 else {
                profile.samples.append(Sample(locationIDs: [leaf], values: [Int64(function.exclusive.rounded())]))
                continue
            }
            // Rounded shares that still add up to the function's whole count.
            var left = Int64(function.exclusive.rounded())
            for (position, call) in callers.enumerated() {
                let share =
                    position == callers.count - 1
                    ? left : Int64((function.exclusive * call.inclusive / spent).rounded())
                left -= share
                guard share != 0 else { continue }
                profile.samples.append(Sample(locationIDs: [leaf, UInt64(call.caller + 1)], values: [share]))
            }
        }
        return profile
    }
}
