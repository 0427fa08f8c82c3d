import ArgumentParser
import Foundation
import Harness

/// A temporary folder for the children and worktrees of a command (`ci`, `bisect`): ``remove()``
/// takes it away with everything registered by ``removing(with:)``, last first.
final class WorkFolder {
    let url: URL
    private var cleanups: [() -> Void]

    /// Creates `<temporary directory>/<prefix>-<pid>-<random>`.
    init(prefix: String) throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.url = url
        cleanups = [{ try? FileManager.default.removeItem(at: url) }]
    }

    func removing(with cleanup: @escaping () -> Void) { cleanups.append(cleanup) }

    func remove() {
        for cleanup in cleanups.reversed() { cleanup() }
        cleanups = []
    }
}

/// A release build of one product of this package at another revision, in its own git worktree
/// and build folder.
struct RevisionBuild {
    var executable: URL
    var remove: () -> Void

    /// SwiftPM's build configuration of a revision.
    enum Configuration: String, ExpressibleByArgument, CaseIterable {
        case release, debug
    }

    /// Checks out `revision` of the repository the current directory is in and builds `product` of
    /// the package at the current directory's place in that checkout: the repository's top for
    /// perfkit, a `Benchmarks/` folder for a package that keeps its benchmarks in one.
    static func make(revision: String, product: String, work: URL, scratchPath: String?) throws -> RevisionBuild {
        let workspace = try Workspace(revision: revision, work: work, scratchPath: scratchPath, command: "ci")
        do {
            let executable = try workspace.build(product, configuration: .release, revision: revision)
            return RevisionBuild(executable: executable, remove: workspace.remove)
        } catch {
            workspace.remove()
            throw error
        }
    }

    /// A git worktree of the current repository with its own build folder, checked out at one
    /// revision after another: `ci --against` builds one revision in it, `bisect` several, each
    /// build incremental on the one before (a one-file change rebuilds in seconds, a fresh build
    /// folder takes minutes).
    struct Workspace {
        /// The checkout's top folder, named like the repository's.
        var source: URL
        /// The package's folder in the checkout (the current directory's place in it).
        var package: URL
        var scratch: URL
        /// The command's name for progress lines ("ci", "bisect").
        var command: String
        private var prefix: String

        init(revision: String, work: URL, scratchPath: String?, command: String) throws {
            let place = try RepositoryPlace.current()
            // Under the repository's own folder name: SwiftPM names a path dependency after its
            // folder, so a package that depends on its repository by path (`.package(path: "..")`)
            // must find it under the same name in the checkout.
            source = work.appendingPathComponent("checkout").appendingPathComponent(place.repositoryName)
            scratch = scratchPath.map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("build")
            package = place.prefix.isEmpty ? source : source.appendingPathComponent(place.prefix)
            prefix = place.prefix
            self.command = command
            printError("\(command): checking out \(revision) in \(source.path)\n")
            guard try tool("git", ["worktree", "add", "--detach", "--quiet", source.path, revision]) == 0 else {
                throw PerfkitError(
                    .runFailed, "\(revision): cannot check out this revision in a separate worktree (git worktree add)")
            }
            do {
                try requirePackage(at: revision)
                try linkOutsideDependencies(of: place, besides: package, within: work)
            } catch {
                remove()
                throw error
            }
        }

        /// Checks out another revision in the same worktree (the build folder stays).
        func checkout(_ revision: String) throws {
            printError("\(command): checking out \(revision)\n")
            guard try tool("git", ["-C", source.path, "checkout", "--detach", "--quiet", revision]) == 0 else {
                throw PerfkitError(.runFailed, "\(revision): cannot check out this revision (git checkout)")
            }
            try requirePackage(at: revision)
        }

        private func requirePackage(at revision: String) throws {
            guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
                throw PerfkitError(
                    .invalidInput,
                    "\(revision): no Package.swift in \(prefix.isEmpty ? "the repository's top folder" : prefix) "
                        + "at that revision")
            }
        }

        /// Builds `product` of the revision checked out; returns the executable.
        func build(_ product: String, configuration: Configuration, revision: String) throws -> URL {
            printError(
                "\(command): building \(product) at \(revision) (\(configuration.rawValue)) in \(scratch.path)\n")
            let built = try tool(
                "swift",
                [
                    "build", "-c", configuration.rawValue, "--product", product, "--package-path", package.path,
                    "--scratch-path", scratch.path,
                ])
            guard built == 0 else {
                throw PerfkitError(
                    .runFailed,
                    "\(revision): the \(configuration.rawValue) build of \(product) failed (swift build exit status \(built))"
                )
            }
            return scratch.appendingPathComponent("\(configuration.rawValue)/\(product)")
        }

        func remove() { _ = try? tool("git", ["worktree", "remove", "--force", source.path]) }
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
            // Named by its absolute path in the manifest: the checkout finds it where it is.
            if manifestText(in: package)?.contains("\"\(dependency.path)\"") == true { continue }
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

    static func manifestText(in package: URL) -> String? {
        try? String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
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
                .invalidInput, "the current directory is not in a git repository (a revision is built from it)")
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
