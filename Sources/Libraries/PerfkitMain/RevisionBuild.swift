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
            throw PerfkitError(
                .runFailed, "\(revision): cannot check out this revision in a separate worktree (git worktree add)")
        }
        let remove = { _ = try? tool("git", ["worktree", "remove", "--force", source.path]) }
        let package = place.prefix.isEmpty ? source : source.appendingPathComponent(place.prefix)
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            remove()
            throw PerfkitError(
                .invalidInput,
                "\(revision): no Package.swift in \(place.prefix.isEmpty ? "the repository's top folder" : place.prefix) "
                    + "at that revision")
        }
        do {
            try linkOutsideDependencies(of: place, besides: package, within: work)
        } catch {
            remove()
            throw error
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
            throw PerfkitError(
                .runFailed, "\(revision): the release build of \(product) failed (swift build exit status \(built))")
        }
        return RevisionBuild(executable: scratch.appendingPathComponent("release/\(product)"), remove: remove)
    }

    /// A path dependency outside the repository (`.package(path: "../perfkit")` beside it) is not
    /// in the checkout: link it at the same relative place next to the checkout, so the package
    /// at REV resolves it as the package here does.
    static func linkOutsideDependencies(of place: RepositoryPlace, besides package: URL, within work: URL) throws {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        let scratch = work.appendingPathComponent("manifest")
        for dependency in try pathDependencies(scratch: scratch) where !place.contains(dependency) {
            let relative = relativePath(from: here, to: dependency)
            let link = package.appendingPathComponent(relative).standardizedFileURL
            guard link.path.hasPrefix(work.standardizedFileURL.path + "/") else {
                throw PerfkitError(
                    .invalidInput,
                    "\(dependency.path): a path dependency too far outside the repository (\(relative)) to place "
                        + "beside the checkout of REV")
            }
            guard !FileManager.default.fileExists(atPath: link.path) else { continue }
            try FileManager.default.createDirectory(
                at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: dependency)
        }
    }

    /// The absolute paths of the current package's path dependencies (`swift package dump-package`).
    /// With a scratch folder of its own: under `swift package perfkit ci` SwiftPM holds the
    /// package's `.build` lock, which a dump-package there would wait for forever.
    static func pathDependencies(scratch: URL) throws -> [URL] {
        guard let swift = ExternalTool.locateOnPath("swift") else {
            throw PerfkitError(.missingTool, "swift: not found on PATH")
        }
        let manifest: Data
        do {
            manifest = try ExternalTool.output(of: swift, ["package", "--scratch-path", scratch.path, "dump-package"])
        } catch {
            throw PerfkitError(
                .runFailed, "ci --against: cannot read this package's manifest (swift package dump-package)")
        }
        struct Manifest: Decodable {
            struct Dependency: Decodable {
                struct FileSystem: Decodable { var path: String }
                var fileSystem: [FileSystem]?
            }
            var dependencies: [Dependency]
        }
        let decoded = try JSONDecoder().decode(Manifest.self, from: manifest)
        return decoded.dependencies.compactMap(\.fileSystem?.first).map {
            URL(fileURLWithPath: $0.path).standardizedFileURL
        }
    }

    /// `target` relative to the directory `base` (`../perfkit`).
    static func relativePath(from base: URL, to target: URL) -> String {
        let from = base.standardizedFileURL.pathComponents
        let to = target.standardizedFileURL.pathComponents
        var common = 0
        while common < min(from.count, to.count) && from[common] == to[common] { common += 1 }
        let up = Array(repeating: "..", count: from.count - common)
        return (up + to[common...]).joined(separator: "/")
    }

    /// Where the current directory is in its git repository.
    struct RepositoryPlace {
        /// The repository's top folder.
        var top: URL
        /// The name of the repository's top folder.
        var repositoryName: String
        /// The current directory relative to the top: empty at the top, `Benchmarks/` in that folder.
        var prefix: String

        /// Whether `url` is the repository's top or inside it (and so in a checkout of it).
        func contains(_ url: URL) -> Bool { url.path == top.path || url.path.hasPrefix(top.path + "/") }

        static func current() throws -> RepositoryPlace {
            guard let git = ExternalTool.locateOnPath("git") else {
                throw PerfkitError(.missingTool, "git: not found on PATH")
            }
            let notInRepository = PerfkitError(
                .invalidInput, "ci --against: the current directory is not in a git repository")
            let output: Data
            do {
                output = try ExternalTool.output(of: git, ["rev-parse", "--show-toplevel", "--show-prefix"])
            } catch {
                throw notInRepository
            }
            // Two lines: the top, then the prefix (an empty line at the top).
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            guard let top = lines.first, !top.isEmpty else { throw notInRepository }
            let topURL = URL(fileURLWithPath: String(top)).standardizedFileURL
            return RepositoryPlace(
                top: topURL, repositoryName: topURL.lastPathComponent,
                prefix: lines.count > 1 ? String(lines[1]) : "")
        }
    }

    /// Runs a tool from PATH, its output on our stderr.
    static func tool(_ name: String, _ arguments: [String]) throws -> Int32 {
        guard let path = ExternalTool.locateOnPath(name) else {
            throw PerfkitError(.missingTool, "\(name): not found on PATH")
        }
        return try PerfkitProcess.run(arguments, executable: URL(fileURLWithPath: path))
    }
}
