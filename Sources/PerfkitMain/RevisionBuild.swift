import Foundation
import Harness

/// A release build of one product of this package at another revision, in its own git worktree
/// and build folder.
struct RevisionBuild {
    var executable: URL
    var remove: () -> Void

    /// Checks out `revision` of the repository the current directory is in and builds `product` of
    /// the package at the current directory's place in that checkout: the repository's top for
    /// perfkit, a `Benchmarks/` folder for a package that keeps its benchmarks in one.
    static func make(revision: String, product: String, work: URL, scratchPath: String?) throws -> RevisionBuild {
        let place = try RepositoryPlace.current()
        // Under the repository's own folder name: SwiftPM names a path dependency after its
        // folder, so a package that depends on its repository by path (`.package(path: "..")`)
        // must find it under the same name in the checkout.
        let source = work.appendingPathComponent("checkout").appendingPathComponent(place.repositoryName)
        let scratch = scratchPath.map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("build")
        printError("ci: checking out \(revision) in \(source.path)\n")
        guard try tool("git", ["worktree", "add", "--detach", "--quiet", source.path, revision]) == 0 else {
            throw PerfkitError("\(revision): cannot check out this revision in a separate worktree (git worktree add)")
        }
        let remove = { _ = try? tool("git", ["worktree", "remove", "--force", source.path]) }
        let package = place.prefix.isEmpty ? source : source.appendingPathComponent(place.prefix)
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            remove()
            throw PerfkitError(
                "\(revision): no Package.swift in \(place.prefix.isEmpty ? "the repository's top folder" : place.prefix) "
                    + "at that revision")
        }
        printError("ci: building \(product) at \(revision) (release) in \(scratch.path)\n")
        let built = try tool(
            "swift",
            [
                "build", "-c", "release", "--product", product, "--package-path", package.path, "--scratch-path",
                scratch.path,
            ])
        guard built == 0 else {
            remove()
            throw PerfkitError("\(revision): the release build of \(product) failed (swift build exit status \(built))")
        }
        return RevisionBuild(executable: scratch.appendingPathComponent("release/\(product)"), remove: remove)
    }

    /// Where the current directory is in its git repository.
    struct RepositoryPlace {
        /// The name of the repository's top folder.
        var repositoryName: String
        /// The current directory relative to the top: empty at the top, `Benchmarks/` in that folder.
        var prefix: String

        static func current() throws -> RepositoryPlace {
            guard let git = ExternalTool.locateOnPath("git") else { throw PerfkitError("git: not found on PATH") }
            let notInRepository = PerfkitError("ci --against: the current directory is not in a git repository")
            let output: Data
            do {
                output = try ExternalTool.output(of: git, ["rev-parse", "--show-toplevel", "--show-prefix"])
            } catch {
                throw notInRepository
            }
            // Two lines: the top, then the prefix (an empty line at the top).
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            guard let top = lines.first, !top.isEmpty else { throw notInRepository }
            return RepositoryPlace(
                repositoryName: URL(fileURLWithPath: String(top)).lastPathComponent,
                prefix: lines.count > 1 ? String(lines[1]) : "")
        }
    }

    /// Runs a tool from PATH, its output on our stderr.
    static func tool(_ name: String, _ arguments: [String]) throws -> Int32 {
        guard let path = ExternalTool.locateOnPath(name) else { throw PerfkitError("\(name): not found on PATH") }
        return try PerfkitProcess.run(arguments, executable: URL(fileURLWithPath: path))
    }
}
