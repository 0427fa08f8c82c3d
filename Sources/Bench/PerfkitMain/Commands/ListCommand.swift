import ArgumentParser
import Foundation
import Harness

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every registered benchmark with its parameters."
    )

    @Option(name: .long, help: "Only benchmarks whose id matches this regular expression.")
    var filter: String?

    func run() throws {
        let selection = try selectedBenchmarks(filter)
        for benchmark in selection.benchmarks {
            let parameters =
                benchmark.parameters.isEmpty
                ? "" : "  parameters: \(benchmark.parameters.map(String.init).joined(separator: ", "))"
            print(benchmark.path + parameters)
        }
    }
}
