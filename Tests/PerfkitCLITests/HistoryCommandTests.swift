import Foundation
import HistoryStoreContract
import PerfReport
import Testing

/// `perfkit history` and `run --history` as a user runs them: real SQLite files, a real git
/// repository, a real SIGKILL half-way through an add and two adds at once.
extension CommandLineTests {
    func runCount(_ store: URL) throws -> Int? {
        let listed = try perfkit(["history", "list", "--store", store.path])
        guard listed.status == 0, let first = listed.stdout.split(separator: "\n").first,
            let range = first.range(of: #"(\d+) runs? on"#, options: .regularExpression)
        else { return nil }
        return Int(first[range].split(separator: " ")[0])
    }

    @Test func historyAddStoresAReportOnceAndKeepsMachinesApart() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Reports/history.sqlite")
        let first = directory.appendingPathComponent("first.json")
        let laptop = directory.appendingPathComponent("laptop.json")
        try ContractFixtures.writeReport(commit: String(repeating: "a", count: 40), to: first)
        try ContractFixtures.writeReport(commit: String(repeating: "a", count: 40), host: "laptop", to: laptop)

        let added = try perfkit(["history", "add", first.path, "--store", store.path])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("1 added, 0 already stored"))
        let again = try perfkit(["history", "add", first.path, first.path, laptop.path, "--store", store.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\(first.path): already stored"))
        #expect(again.stdout.contains("1 added, 2 already stored"))
        let listed = try perfkit(["history", "list", "--store", store.path])
        #expect(listed.stdout.hasPrefix("history: \(store.path): 2 runs on 2 machines"), "\(listed.stdout)")
        #expect(listed.stdout.contains("laptop (c, 2 cores):"))
    }

    @Test func historyAddOfAMalformedReportAddsNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("history.sqlite")
        let good = directory.appendingPathComponent("good.json")
        let bad = directory.appendingPathComponent("bad.json")
        try ContractFixtures.writeReport(commit: nil, to: good)
        try Data("{\"schemaVersion\": 1, \"benchmarks\": [".utf8).write(to: bad)
        _ = try perfkit(["history", "add", good.path, "--store", store.path])
        try ContractFixtures.writeReport(commit: nil, minute: 1, to: good)

        let refused = try perfkit(["history", "add", good.path, bad.path, "--store", store.path])
        #expect(refused.status == 1)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("\(bad.path): not valid JSON"), "\(refused.stderr)")
        #expect(try runCount(store) == 1)
    }

    /// SIGKILL just before COMMIT (a real death of the process half-way through an add): the file is
    /// as it was, and takes the next add. The store contract's check, on SQLite through `perfkit`.
    @Test func aKilledAddLeavesTheStoreAsItWas() throws {
        try toolCheck(.aKilledAddLeavesTheStoreAsItWas)
    }

    /// Two `history add` at once into one new file: the second waits for the first; nothing is lost
    /// and nothing is added twice.
    @Test func twoAddsAtOnceLoseNothing() throws {
        try toolCheck(.twoAddsAtOnceLoseAndDuplicateNothing)
    }

    func toolCheck(_ check: StoreToolCheck) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("history.sqlite")
        try check.run(tool: Self.executable, store: store.path, folder: directory) {
            try #require(try runCount(store))
        }
    }

    @Test func aDamagedOrForeignStoreIsAOneLineError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x5A, count: 4096).write(to: garbage)
        let report = directory.appendingPathComponent("r.json")
        try ContractFixtures.writeReport(commit: nil, to: report)
        for arguments in [["history", "list"], ["history", "changes"], ["history", "add", report.path]] {
            let outcome = try perfkit(arguments + ["--store", garbage.path])
            #expect(outcome.status == 1)
            #expect(outcome.stderr == "Error: \(garbage.path): not an SQLite database (file is not a database)\n")
        }
        #expect(try Data(contentsOf: garbage) == Data(repeating: 0x5A, count: 4096))
        let missing = try perfkit(["history", "changes", "--store", directory.appendingPathComponent("none").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no history store here"))
    }

    /// perfkit itself has no PostgreSQL client: a PostgreSQL URL is refused in one line that says
    /// where the tool that opens one is, without the URL's password.
    @Test func historyWithAPostgresURLPointsAtPerfkitHistory() throws {
        for arguments in [
            ["history", "list", "--store", "postgresql://ci:s3cret@db.internal/perf"],
            ["run", "--allow-debug-build", "--history", "postgres://ci:s3cret@db.internal/perf"],
        ] {
            let outcome = try perfkit(arguments)
            #expect(outcome.status == 1)
            #expect(
                outcome.stderr.hasPrefix("Error: \(arguments[3].replacingOccurrences(of: "s3cret", with: "***")): "),
                "\(outcome.stderr)")
            #expect(outcome.stderr.contains("needs perfkit-history (built from Integrations/PostgresHistory"))
            #expect(!outcome.stderr.contains("s3cret"))
            #expect(outcome.stderr.split(separator: "\n").count == 1)
        }
    }

    /// A real repository of 12 commits, one run each; the instruction count rises 10% at the 8th.
    /// `changes` names that commit once; `--since` the 5th fails (exit 2), `--since` the 9th passes.
    @Test func historyChangesFindsTheCommitAndGatesSinceARevision() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, commits) = try repository(commits: 12, in: directory)
        var reports: [String] = []
        for (index, commit) in commits.enumerated() {
            let url = directory.appendingPathComponent("r\(index).json")
            try ContractFixtures.writeReport(
                commit: commit, instructions: index >= 7 ? 1100 : 1000, minute: index, to: url)
            reports.append(url.path)
        }
        let store = directory.appendingPathComponent("history.sqlite").path
        let added = try perfkit(in: repository, ["history", "add"] + reports + ["--store", store])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try perfkit(in: repository, ["history", "list", "--store", store])
        #expect(listed.stdout.contains("\(commits[7].prefix(10)) #8  1 benchmark, quick"), "\(listed.stdout)")
        #expect(listed.stdout.contains("\(commits[11].prefix(10)) #12 (main)"), "the branch checked out is HEAD's")

        let changes = try perfkit(in: repository, ["history", "changes", "--store", store])
        #expect(changes.status == 0, "\(changes.stderr)")
        #expect(changes.stdout.contains("1 change point:"), "\(changes.stdout)")
        #expect(changes.stdout.contains("regression  Demo/work/sum  instructions  +10.0 % at \(commits[7].prefix(10))"))
        #expect(changes.stdout.contains("right after \(commits[6].prefix(10))"))

        let gated = try perfkit(
            in: repository, ["history", "changes", "--store", store, "--since", String(commits[4].prefix(8))])
        #expect(gated.status == 2, "\(gated.stdout) \(gated.stderr)")
        let passed = try perfkit(
            in: repository, ["history", "changes", "--store", store, "--since", commits[8]])
        #expect(passed.status == 0, "\(passed.stdout) \(passed.stderr)")
        let json = try perfkit(in: repository, ["history", "changes", "--store", store, "--format", "json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let found = try #require(document["changes"] as? [[String: Any]])
        #expect(found.count == 1)
        #expect(found.first?["commit"] as? String == commits[7])
    }

    @Test func runWithHistoryFilesTheRun() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("h.sqlite")
        let outcome = try perfkit([
            "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/identity", "--output",
            directory.appendingPathComponent("out").path, "--history", store.path, "--machine", "test-box",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("1 added, 0 already stored: \(store.path)"), "\(outcome.stdout)")
        let listed = try perfkit(["history", "list", "--store", store.path])
        #expect(listed.stdout.contains("test-box:"), "\(listed.stdout)")
        let stray = try perfkit(["run", "--allow-debug-build", "--machine", "x"])
        #expect(stray.status == 1)
        #expect(stray.stderr.contains("give --history too"))
    }
}

extension CommandLineTests {
    /// What `bisect` refuses before building anything (the search itself: `BisectSearchTests`; a
    /// whole bisection of a throwaway repository: `scripts/history-check.sh`).
    @Test func bisectRefusesWhatItCannotBisect() throws {
        let several = try perfkit(["bisect", "--good", "HEAD~1", "--filter", "Harness/baseline"])
        #expect(several.status == 1)
        #expect(several.stderr.contains("selects") && several.stderr.contains("bisect follows exactly one"))
        let unknown = try perfkit([
            "bisect", "--good", "no-such-revision-anywhere", "--filter", "^Harness/baseline/identity$",
        ])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: --good no-such-revision-anywhere: not a commit of this repository\n")
    }
}

/// `perfkit history report` and the history page `run --history … --format …,html` writes.
extension CommandLineTests {
    /// Runs the `perfkit` under test with `directory` as the current directory.
    func perfkit(in directory: URL, _ arguments: [String]) throws -> Outcome {
        try run(Self.executable, arguments, currentDirectory: directory)
    }

    /// A git repository in `directory/repo` with `count` empty commits: their hashes, oldest first.
    func repository(commits count: Int, in directory: URL) throws -> (URL, [String]) {
        let repository = directory.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        let git = try #require(
            ["/usr/bin/git", "/usr/local/bin/git"].first(where: FileManager.default.isExecutableFile))
        func inRepository(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: git)
            process.arguments = ["-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments
            process.currentDirectoryURL = repository
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try inRepository(["init", "-q", "-b", "main"])
        var commits: [String] = []
        for index in 1...count {
            _ = try inRepository(["commit", "-q", "--allow-empty", "-m", "c\(index)"])
            commits.append(try inRepository(["rev-parse", "HEAD"]))
        }
        return (repository, commits)
    }

    /// 8 commits, one run each, the instruction count 10% higher from the 5th: the page has the
    /// benchmark's chart with the change marked at that commit, written whole into a directory
    /// it creates; nothing else is left beside it.
    @Test func historyReportWritesThePage() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, commits) = try repository(commits: 8, in: directory)
        var reports: [String] = []
        for (index, commit) in commits.enumerated() {
            let url = directory.appendingPathComponent("r\(index).json")
            try ContractFixtures.writeReport(
                commit: commit, instructions: index >= 4 ? 1100 : 1000, minute: index, to: url)
            reports.append(url.path)
        }
        let store = directory.appendingPathComponent("history.sqlite").path
        #expect(try perfkit(in: repository, ["history", "add"] + reports + ["--store", store]).status == 0)

        let output = directory.appendingPathComponent("pages/history.html")
        let written = try perfkit(in: repository, ["history", "report", "--store", store, "-o", output.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(
            written.stdout.contains("history: \(store): 8 runs, 2 series searched, 1 change point"), "\(written.stdout)"
        )
        let page = try String(contentsOf: output, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</body></html>\n"))
        #expect(page.components(separatedBy: "<figure class=\"trend").count - 1 == 2, "wall time and instructions")
        #expect(page.contains("<figure class=\"trend has-regression\""))
        #expect(page.contains("<g class=\"change regression\" data-commit=\"\(commits[4])\">"))
        #expect(!page.contains("http://") && !page.contains("https://"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == [
                "history.html"
            ])

        // The same options as `history changes`: one metric, or a filter that matches nothing.
        let wall = try perfkit(
            in: repository, ["history", "report", "--store", store, "-o", output.path, "--metric", "wall"])
        #expect(wall.status == 0, "\(wall.stderr)")
        #expect(
            try String(contentsOf: output, encoding: .utf8).components(separatedBy: "<figure class=\"trend").count == 2)
        let none = try perfkit(
            in: repository, ["history", "report", "--store", store, "-o", output.path, "--filter", "^Nothing$"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8).contains("No series: the store has no runs to draw."))
    }

    /// Bad input is a one-line error, exit 1, and the page that was there stays as it was.
    @Test func historyReportOfBadInputWritesNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("r.json")
        try ContractFixtures.writeReport(commit: nil, to: report)
        let store = directory.appendingPathComponent("history.sqlite").path
        #expect(try perfkit(["history", "add", report.path, "--store", store]).status == 0)
        let output = directory.appendingPathComponent("history.html")
        try Data("the previous page".utf8).write(to: output)

        let blocker = directory.appendingPathComponent("a-file")
        try Data().write(to: blocker)
        let underAFile = blocker.appendingPathComponent("history.html").path
        let garbage = directory.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x5A, count: 4096).write(to: garbage)
        for arguments in [
            ["--store", store, "-o", underAFile],
            ["--store", store, "-o", directory.path],
            ["--store", garbage.path, "-o", output.path],
            ["--store", directory.appendingPathComponent("none.sqlite").path, "-o", output.path],
        ] {
            let outcome = try perfkit(["history", "report"] + arguments)
            #expect(outcome.status == 1, "\(arguments)")
            let lines = outcome.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("Error: "), "\(arguments): \(outcome.stderr)")
        }
        let blocked = try perfkit(["history", "report", "--store", store, "-o", underAFile]).stderr
        #expect(blocked == "Error: \(underAFile): cannot create \(blocker.path): not a directory\n", "\(blocked)")
        // Options `history changes` refuses too, with the usage after the error.
        for arguments in [["--filter", "("], ["--min-shift=-1"]] {
            let outcome = try perfkit(["history", "report", "--store", store, "-o", output.path] + arguments)
            #expect(outcome.status == 1, "\(arguments)")
            #expect(outcome.stderr.hasPrefix("Error: --"), "\(arguments): \(outcome.stderr)")
        }
        #expect(try String(contentsOf: output, encoding: .utf8) == "the previous page")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == ["a-file", "garbage.sqlite", "history.html", "history.sqlite", "r.json"])
    }

    /// `run --history --format json,html`: the history page beside the report, filed run included,
    /// and the report's benchmark linking to its trend there.
    @Test func runWithHistoryWritesTheTrendPageBesideTheReport() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (repository, _) = try repository(commits: 1, in: directory)
        let store = directory.appendingPathComponent("h.sqlite")
        let output = directory.appendingPathComponent("out")
        let outcome = try perfkit(
            in: repository,
            [
                "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/identity", "--output",
                output.path, "--history", store.path, "--format", "json,html",
            ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let reportDirectory = try #require(reports(in: output).first).deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: reportDirectory.path).sorted()
        #expect(files == ["history.html", "report.html", "report.json"])
        #expect(outcome.stdout.contains("report: \(reportDirectory.appendingPathComponent("history.html").path)"))

        let report = try String(contentsOf: reportDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        let link = try #require(
            report.range(of: #"href="history\.html#(t-[0-9a-f]{16})""#, options: .regularExpression))
        let anchor = report[link].dropFirst("href=\"history.html#".count).dropLast()
        let page = try String(contentsOf: reportDirectory.appendingPathComponent("history.html"), encoding: .utf8)
        #expect(page.contains("<span id=\"\(anchor)\"></span>"), "the link's target is on the page")
        #expect(page.contains("Harness/<wbr>baseline/<wbr>identity"))

        // Without html, no page and no link.
        let plain = try perfkit(
            in: repository,
            [
                "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/identity", "--output",
                directory.appendingPathComponent("plain").path, "--history", store.path,
            ])
        #expect(plain.status == 0, "\(plain.stderr)")
        let plainDirectory = try #require(reports(in: directory.appendingPathComponent("plain")).first)
            .deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: plainDirectory.path) == ["report.json"])
    }
}
