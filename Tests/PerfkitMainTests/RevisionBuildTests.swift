import Foundation
import Testing

@testable import PerfkitMain

/// Where `ci --against` places a path dependency that lives outside the repository.
@Suite struct RevisionBuildTests {
    func url(_ path: String) -> URL { URL(fileURLWithPath: path) }

    @Test func relativePathsBetweenDirectories() {
        #expect(RevisionBuild.relativePath(from: url("/w/MyLib"), to: url("/w/perfkit")) == "../perfkit")
        #expect(RevisionBuild.relativePath(from: url("/w/repo/Benchmarks"), to: url("/w/perfkit")) == "../../perfkit")
        #expect(RevisionBuild.relativePath(from: url("/w/repo"), to: url("/w/repo/vendor/x")) == "vendor/x")
        #expect(RevisionBuild.relativePath(from: url("/w/repo/"), to: url("/w/repo")) == "")
    }

    @Test func theRepositoryContainsItsTopAndWhatIsUnderIt() {
        let place = RevisionBuild.RepositoryPlace(top: url("/w/repo"), repositoryName: "repo", prefix: "")
        #expect(place.contains(url("/w/repo")))
        #expect(place.contains(url("/w/repo/Sub")))
        #expect(!place.contains(url("/w/repo-other")))
        #expect(!place.contains(url("/w/perfkit")))
    }
}
