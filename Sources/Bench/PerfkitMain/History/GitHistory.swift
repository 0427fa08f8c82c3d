import Foundation
import Harness
import PerfkitHistory

/// What the history asks git: the first-parent order of the current repository, a revision's
/// hash, the branch checked out. Every question returns nil outside a repository or without git,
/// and the commands say what that costs (positions from the store, no branch).
enum GitHistory {
    private static func git(_ arguments: [String]) -> String? {
        guard let git = ExternalTool.locateOnPath("git"),
            let data = try? ExternalTool.output(of: git, arguments)
        else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// `git rev-list --first-parent HEAD`, oldest first.
    static func firstParentOrder(from revision: String = "HEAD") -> CommitOrder? {
        guard let listing = git(["rev-list", "--first-parent", "--reverse", revision]) else { return nil }
        return CommitOrder(oldestFirst: listing.split(separator: "\n").map(String.init))
    }

    /// The full hash of a revision, nil when git does not know it.
    static func resolve(_ revision: String) -> String? {
        git(["rev-parse", "--verify", "--quiet", "\(revision)^{commit}"])
    }

    /// The commit's place along its own first-parent history (for a commit off HEAD's).
    static func depth(of commit: String) -> Int? {
        git(["rev-list", "--first-parent", "--count", commit]).flatMap { Int($0) }
    }

    /// The branch checked out, nil when HEAD is detached.
    static func currentBranch() -> String? { git(["symbolic-ref", "--short", "-q", "HEAD"]) }

    static func head() -> String? { git(["rev-parse", "HEAD"]) }

    /// The first line of a commit's message.
    static func subject(of commit: String) -> String? { git(["log", "-1", "--format=%s", commit]) }
}
