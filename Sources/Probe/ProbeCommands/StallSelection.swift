import ArgumentParser
import PerfkitMain

/// `stalls --stall/--group/--watchdog`: which stalls of a file `perfkit stalls` exports or lists; a
/// stall must match each option given.
struct StallSelection: ParsableArguments {
    @Option(help: "Only this stall (1 for the first in the file, as --list numbers them); repeatable.")
    var stall: [Int] = []

    @Option(help: "Only stalls whose group key contains this text.")
    var group: String?

    @Option(help: "Only stalls of the watchdog with this name.")
    var watchdog: String?

    func validate() throws {
        if let bad = stall.first(where: { $0 < 1 }) { throw ValidationError("--stall \(bad): stalls count from 1") }
    }

    /// The stalls of `all` (read from `input`) that match every option, in file order; an error
    /// naming what is there when an option matches none.
    func pick(from all: [NumberedStall], in input: String) throws -> [NumberedStall] {
        let count = StallsCommand.count
        if let missing = stall.first(where: { $0 > all.count }) {
            throw PerfkitError(
                .invalidInput, "\(input): no stall \(missing); the file holds \(count(all.count, "stall"))")
        }
        var picked = all
        if !stall.isEmpty { picked = picked.filter { stall.contains($0.number) } }
        if let watchdog {
            let matching = picked.filter { $0.record.watchdog == watchdog }
            if matching.isEmpty {
                let names = Set(all.map(\.record.watchdog)).sorted().joined(separator: ", ")
                throw PerfkitError(
                    .invalidInput,
                    "\(input): no\(stall.isEmpty ? "" : " picked") stall of watchdog \"\(watchdog)\" (watchdogs: \(names))"
                )
            }
            picked = matching
        }
        if let group {
            let matching = picked.filter { $0.record.groupKey.contains(group) }
            if matching.isEmpty {
                let groups = Set(picked.map(\.record.groupKey)).count
                throw PerfkitError(
                    .invalidInput,
                    "\(input): no\(picked.count < all.count ? " picked" : "") stall's group key contains \"\(group)\" "
                        + "(\(count(picked.count, "stall")) in \(count(groups, "group")); --list shows them)")
            }
            picked = matching
        }
        return picked
    }
}
