import ArgumentParser
import Foundation
import Harness

/// The perfkit command line for a package's own benchmarks: `run`, `list`, `compare`, `baseline`,
/// `ci` and `report`, with every option and output format the `perfkit` executable has. A benchmark
/// executable hands its suites over in one call:
///
/// ```swift
/// import Harness
/// import PerfkitMain
///
/// PerfkitMain.run(suites: [myLibSuite])
/// ```
///
/// `perfkit` itself is such an executable: its own suites, plus commands of its parts
/// (`scale`, `startup`, …) through `extraCommands`.
public enum PerfkitMain {
    /// Parses the process's arguments, runs the command and exits: 0 when fine, 1 on a usage or
    /// input error, 2 on a regression, 130 when interrupted.
    ///
    /// - Parameters:
    ///   - suites: The benchmarks `run` and `list` know. At least one, with ids unique across them.
    ///   - commandName: The name help and errors use; the executable's file name by default.
    ///   - abstract: The one line `--help` starts with.
    ///   - extraCommands: More subcommands, after the generic ones.
    ///   - baselineFilter: The benchmarks `baseline update` measures by default (a regular
    ///     expression over ids): leave out those whose instruction counts under valgrind say little,
    ///     such as benchmarks that wait for other threads. Every benchmark when nil.
    public static func run(
        suites: [BenchmarkSuite], commandName: String? = nil,
        abstract: String = "Benchmarks measured, compared and reported by perfkit.",
        extraCommands: [any ParsableCommand.Type] = [], baselineFilter: String? = nil
    ) -> Never {
        let name = commandName ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "perfkit").lastPathComponent
        PerfkitCommand.configuration = CommandConfiguration(
            commandName: name, abstract: abstract, version: perfkitVersionString,
            subcommands: PerfkitCommand.genericCommands + extraCommands)
        do {
            RegisteredSuites.all = try RegisteredSuites.checked(suites)
            RegisteredSuites.baselineFilter = baselineFilter ?? "."
        } catch {
            PerfkitCommand.fail(error)
        }
        PerfkitCommand.parseAndRun()
    }
}

/// The suites a benchmark executable handed to ``PerfkitMain``, for the commands that measure or
/// list them.
enum RegisteredSuites {
    /// Set once, on the main thread, before the arguments are parsed; only read afterwards.
    nonisolated(unsafe) static var all: [BenchmarkSuite] = []
    /// What `baseline update` measures by default; set with ``all``.
    nonisolated(unsafe) static var baselineFilter = "."

    /// `suites`, or an error when there is nothing to run, a benchmark's id is malformed, or two
    /// benchmarks share an id (their results could not be told apart in a report, a baseline or a
    /// comparison).
    static func checked(_ suites: [BenchmarkSuite]) throws -> [BenchmarkSuite] {
        guard suites.contains(where: { !$0.benchmarks.isEmpty }) else {
            throw PerfkitError(
                .invalidInput, "no benchmarks: the executable handed perfkit no suite with a benchmark in it")
        }
        if let problem = suites.lazy.flatMap(\.benchmarks).compactMap(\.pathProblem).first {
            throw PerfkitError(.invalidInput, problem)
        }
        var seen = Set<String>()
        var duplicates: [String] = []
        for id in suites.flatMap({ $0.benchmarks.flatMap(\.ids) }) where !seen.insert(id).inserted {
            duplicates.append(id)
        }
        guard duplicates.isEmpty else {
            throw PerfkitError(.invalidInput, "duplicate benchmark id: \(duplicates.joined(separator: ", "))")
        }
        return suites
    }
}
