/// The first-parent history the series follow: each commit's place along it (1 for the root
/// commit), as `git rev-list --first-parent` lists it from the commit analysed.
///
/// Runs of commits off this history (a feature branch's) are left out of its series; runs of
/// commits this repository does not know are too.
public struct CommitOrder: Sendable, Equatable {
    /// Commit hashes, oldest first.
    public var commits: [String]
    private var positions: [String: Int]

    public init(oldestFirst commits: [String]) {
        self.commits = commits
        positions = Dictionary(commits.enumerated().map { ($1, $0 + 1) }, uniquingKeysWith: { first, _ in first })
    }

    /// The commit's place (1-based), nil when it is not on this history. Accepts an abbreviated hash
    /// of at least 7 characters when it is unambiguous.
    public func position(of commit: String) -> Int? {
        if let exact = positions[commit] { return exact }
        guard commit.count >= 7 else { return nil }
        let matches = commits.indices.filter { commits[$0].hasPrefix(commit) }
        return matches.count == 1 ? matches[0] + 1 : nil
    }
}
