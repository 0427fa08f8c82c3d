import Foundation
import PackagePlugin

/// `swift package perfkit run|list|compare|report|baseline update|ci …`: the perfkit command line
/// over every benchmark executable of the package.
///
/// A benchmark executable is an executable product whose code depends on perfkit's `PerfkitMain`
/// (directly or through other targets). The plugin builds each in release mode with SwiftPM's own
/// build (so it needs no tool of its own, whether perfkit is a path or a versioned dependency),
/// runs the same command in each, and merges what they wrote: one `Reports/<timestamp>/` for `run`,
/// one baseline file for `baseline update`, one summary for `ci`.
@main
struct PerfkitPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var options = PluginArguments(arguments)
        let selected = try options.values(of: "target")
        let arguments = options.remaining
        guard let command = arguments.first, !["help", "-h", "--help"].contains(command) else {
            print(Self.usage)
            return
        }
        let executables = try Self.benchmarkExecutables(in: context.package, selected: selected)
        let work = context.pluginWorkDirectoryURL.appendingPathComponent("run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let runner = try await ChildRunner(
            built: Self.build(executables, with: packageManager), directory: context.package.directoryURL,
            interruption: Interruption())

        let rest = Array(arguments.dropFirst())
        // A command's own help comes from the first executable, whatever the command.
        if rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
            return try runner.check(runner.built[0], [command] + rest)
        }
        switch command {
        case "run":
            try runner.run(rest, work: work)
        case "baseline":
            try runner.updateBaseline(rest, work: work)
        case "ci":
            try runner.ci(rest, work: work)
        case "list":
            try runner.list(rest)
        default:
            // compare, report, merge: commands over saved reports; any executable has them.
            try runner.check(runner.built[0], [command] + rest)
        }
    }

    static let usage = """
        USAGE: swift package [--allow-writing-to-package-directory] perfkit [--target <name> ...] <command> [<options>]

        Builds the package's benchmark executables (executable products that depend on PerfkitMain) in
        release mode, runs <command> in each and merges what they write:
          run              one Reports/<timestamp>/ for all of them (--baseline, --gate-metric,
                           --summary, --threshold, --alpha, --format, --output and --history apply to
                           the merged report)
          baseline update  one baseline file (--output, default Reports/baseline.json)
          ci --against REV each executable built at REV and compared interleaved; one summary
                           (--summary, default Reports/ci-summary.md)
          list             each executable's benchmarks
          compare, report, history
                           over saved reports and the history, as the executables' own commands
        --target <name>    only this benchmark executable (repeatable)
        Paths are relative to the package directory; `swift package perfkit run --help` shows the
        options of a command. On a regression the plugin ends with exit code 2, which SwiftPM reports
        as "Plugin ended with exit code 2" and turns into its own exit status 1; run a benchmark
        executable directly (swift run -c release <name> run ...) to tell 2 from 1.
        """

    /// The executable products whose code depends on a target named `PerfkitMain`.
    static func benchmarkExecutables(in package: Package, selected: [String]) throws -> [String] {
        let found = package.products.compactMap { product -> String? in
            guard let executable = product as? ExecutableProduct else { return nil }
            let targets = [executable.mainTarget] + executable.mainTarget.recursiveTargetDependencies
            return targets.contains { $0.name == "PerfkitMain" } ? executable.name : nil
        }
        .sorted()
        if found.isEmpty {
            throw PluginFailure(
                "\(package.displayName): no benchmark executable (an executable product depending on PerfkitMain)")
        }
        guard !selected.isEmpty else { return found }
        if let unknown = selected.first(where: { !found.contains($0) }) {
            throw PluginFailure(
                "--target \(unknown): not a benchmark executable of \(package.displayName) "
                    + "(found: \(found.joined(separator: ", ")))")
        }
        return found.filter { selected.contains($0) }
    }

    static func build(_ names: [String], with packageManager: PackageManager) async throws -> [URL] {
        var built: [URL] = []
        for name in names {
            Diagnostics.progress("perfkit: building \(name) (release)")
            let result = try packageManager.build(
                .product(name), parameters: .init(configuration: .release, logging: .concise))
            guard result.succeeded, let artifact = result.builtArtifacts.first(where: { $0.kind == .executable })
            else {
                print(result.logText)
                throw PluginFailure("\(name): the release build failed")
            }
            built.append(artifact.url)
        }
        return built
    }
}

/// A one-line error; SwiftPM prints it and exits 1.
struct PluginFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
