import PerfkitMain
import ArgumentParser
import Foundation
import HTMLReport
import Harness
import PerfReport
import PerfkitGzip
import PerfkitPprof
import ProbeRecords

package struct StallsCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "stalls",
        abstract:
            "Export the sampled stacks of Probe stalls: folded stacks, speedscope, HTML flame graphs or a pprof profile.",
        discussion: """
            Reads a perfkit report (report.json with "stalls") or a Probe stalls .jsonl file and writes \
            the stalls' call trees (each stall's samples merged root first).

            folded: Brendan Gregg's collapsed stacks, for flamegraph.pl or inferno-flamegraph: one line \
            per distinct stack, "root;…;leaf <samples>", frames by their demangled names (";" in a name \
            becomes ",", line breaks become spaces). speedscope: a speedscope JSON file \
            (https://www.speedscope.app, also offline), one "sampled" profile per set of stalls; the \
            samples are aggregated, so use its Left Heavy or Sandwich view (Time Order is not in time). \
            html: a self-contained page with a timeline, a table, and per group key an icicle chart \
            and the call tree as text. pprof: a gzipped profile.proto for `go tool pprof` (-top, -web, \
            -http, -proto to merge files) and other pprof readers: sample types samples/count (the \
            default) and wall/nanoseconds (samples × the stall's sample interval, estimated from its \
            record), each sample labelled stall_id (as --list numbers stalls), watchdog, class and \
            thread, for -tagfocus and -tagshow; frames at their module, address and build ID. Example: `perfkit stalls stalls.jsonl --format pprof -o stalls.pb.gz`, then \
            `go tool pprof -top stalls.pb.gz`.

            --split keeps stalls apart. In folded output each stack then starts with a frame naming its \
            set ("[watchdog main]", "[group <key>]", "[stall 3: main, 238 ms, cpu-bound]"); speedscope \
            gets one profile per set. Default: folded merges every stall into one graph, speedscope \
            has a profile per group key; the html page always groups by group key; pprof keeps one \
            profile and tells stalls apart by their labels. A pool starvation's call tree already \
            merges every pool thread's samples.

            --stall, --group and --watchdog pick stalls (a stall must match each one given); --list \
            prints the stalls with their numbers and group keys. Stalls without a call tree (no sample \
            was answered) are left out of folded, speedscope and pprof output, with a note on standard \
            error.

            File and line: frames that carry them (from `perfkit symbolicate --output`) show them, as \
            "name (File.swift:12)" in folded output, as speedscope's file and line, as pprof's function \
            file and location line. --lines looks up the others first, as `perfkit symbolicate` does \
            (llvm-symbolizer or addr2line on this machine's module files, same build ID only); without \
            it no external tool runs. A call tree merges samples by function, so a function's line is \
            the one of its first sample.

            folded and speedscope go to standard output unless --output is given; html and pprof \
            need --output. --output is written atomically (a temporary file renamed into place).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case folded, speedscope, html, pprof
    }

    @Argument(help: "A perfkit report (report.json with \"stalls\") or a Probe stalls .jsonl file.")
    var input: String

    @Option(help: "What to write (see above).")
    var format: Format?

    @Option(name: .shortAndLong, help: "Write to this file (atomically) instead of standard output.")
    var output: String?

    @Option(
        help: """
            Keep stalls apart: none, watchdog, group (key) or stall. Default: none for folded, group \
            for speedscope. Not for html or pprof.
            """)
    var split: StallSplit?

    @OptionGroup var selection: StallSelection

    @Flag(help: "List the (picked) stalls, one per line with number and group key, instead of exporting.")
    var list = false

    @Flag(help: "Look up file:line of frames that lack them first (llvm-symbolizer or addr2line).")
    var lines = false

    @Option(help: "With --lines: the llvm-symbolizer or addr2line to run (default: llvm-symbolizer next to swift).")
    var symbolizer: String?

    package func validate() throws {
        if list {
            if format != nil || output != nil || split != nil || lines {
                throw ValidationError("--list prints the stalls; it takes no --format, --output, --split or --lines")
            }
            return
        }
        guard let format else {
            throw ValidationError("give --format folded, speedscope, html or pprof (or --list)")
        }
        if format == .html && output == nil {
            throw ValidationError("--format html needs --output PATH (a page is not written to the terminal)")
        }
        if format == .pprof && output == nil {
            throw ValidationError("--format pprof needs --output PATH (a gzipped binary profile)")
        }
        if format == .html && split != nil {
            throw ValidationError("--split is for folded and speedscope; the html page groups stalls by group key")
        }
        if format == .pprof && split != nil {
            throw ValidationError(
                "--split is for folded and speedscope; pprof labels each sample with its stall_id, watchdog and class")
        }
        if symbolizer != nil && !lines { throw ValidationError("--symbolizer is used with --lines only") }
    }

    package init() {}

    package func run() throws {
        var warnings: [String] = []
        let document = try StallDocument.load(path: input, warnings: &warnings)
        for warning in warnings { printError("warning: \(warning)\n") }
        let all = document.stalls.enumerated().map { NumberedStall(number: $0.offset + 1, record: $0.element) }
        if all.isEmpty { throw PerfkitError(.invalidInput, "\(input): no stalls") }
        var picked = try selection.pick(from: all, in: input)
        if list {
            for stall in picked { print(Self.listLine(stall)) }
            return
        }
        if lines { picked = try withLines(picked) }

        let data: Data
        switch format! {
        case .folded:
            data = Data(FoldedStacks.render(try foldedPaths(picked)).utf8)
        case .speedscope:
            data = try speedscopeFile(picked).encoded()
        case .html:
            data = Data(HTMLReportRenderer.render(pageReport(document, stalls: picked.map(\.record))).utf8)
        case .pprof:
            let stalls = try withCallTrees(picked)
            let count = "\(stalls.count) stall\(stalls.count == 1 ? "" : "s")"
            let profile = StallProfile.profile(
                stalls.map { ($0.number, $0.record) },
                comment: "perfkit stalls \(URL(fileURLWithPath: input).lastPathComponent): \(count)")
            do {
                data = try Gzip.compress(profile.encoded())
            } catch let error as Gzip.CompressionError {
                throw PerfkitError(.cannotWrite, error.description, cause: error)
            }
        }
        if let output {
            let url = URL(fileURLWithPath: output)
            try writeOutput(data, to: url)
            print("written: \(url.path) (\(picked.count) stall\(picked.count == 1 ? "" : "s"))")
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    /// The stalls with file and line looked up for every frame that has a module and offset.
    private func withLines(_ stalls: [NumberedStall]) throws -> [NumberedStall] {
        let tool = try OfflineSymbolizer.locate(explicitPath: symbolizer)
        let frames = FrameLookup.frames(of: stalls.map(\.record))
        let lookup = try FrameLookup(frames: frames, symbolizer: tool)
        // Frames that could not be looked up are named on standard error, not in the output.
        let problems = frames.compactMap { lookup.problem(for: $0) }
        if !problems.isEmpty {
            let reasons = Set(problems).sorted().prefix(2).joined(separator: "; ")
            printError("note: no file:line for \(problems.count) of \(frames.count) frames (\(reasons))\n")
        }
        return stalls.map { NumberedStall(number: $0.number, record: lookup.filled($0.record)) }
    }

    /// Every picked stall's call tree as paths, each led by a frame naming its set (if split):
    /// `[group <key>]`, in brackets like Probe's `[syscall …]`, as it is no function.
    private func foldedPaths(_ stalls: [NumberedStall]) throws -> SampledPaths {
        var paths = SampledPaths()
        for set in (split ?? .none).sets(try withCallTrees(stalls)) {
            let prefix = set.name.map { [ProfileFrame(label: "[\($0)]")] } ?? []
            for stall in set.stalls { paths.add(stall.record.callTree!, under: prefix) }
        }
        return paths
    }

    /// One profile per set: `group <key> — 2 stalls, 480 ms`, or a stall's own label.
    private func speedscopeFile(_ stalls: [NumberedStall]) throws -> SpeedscopeFile {
        let sets = (split ?? .group).sets(try withCallTrees(stalls))
        let profiles = sets.map { set in
            var paths = SampledPaths()
            for stall in set.stalls { paths.add(stall.record.callTree!) }
            if split == .stall, let name = set.name { return (name: name, paths: paths) }
            let milliseconds = Int((set.stalls.reduce(0) { $0 + $1.record.durationNanoseconds } / 1e6).rounded())
            let name = "\(set.name ?? "all stalls") — \(Self.count(set.stalls.count, "stall")), \(milliseconds) ms"
            return (name: name, paths: paths)
        }
        let fileName = URL(fileURLWithPath: input).lastPathComponent
        return SpeedscopeFile(name: "\(fileName): \(Self.count(stalls.count, "stall"))", profiles: profiles)
    }

    /// The stalls that have a call tree with samples; an error when none has, a note for those left out.
    private func withCallTrees(_ stalls: [NumberedStall]) throws -> [NumberedStall] {
        let usable = stalls.filter { ($0.record.callTree?.count ?? 0) > 0 }
        if usable.isEmpty {
            throw PerfkitError(
                .invalidInput,
                "\(input): no call trees in \(stalls.count == 1 ? "the stall" : "the \(stalls.count) stalls") (no stack was sampled)"
            )
        }
        if usable.count < stalls.count {
            let left = stalls.filter { ($0.record.callTree?.count ?? 0) == 0 }.map { String($0.number) }
            printError(
                "note: left out stall\(left.count == 1 ? "" : "s") \(left.joined(separator: ", ")): no call tree\n")
        }
        return usable
    }

    /// The report the page is made from: a report's own (its environment and date, only these
    /// stalls); for JSON lines, which record no environment, a Probe report that says so.
    private func pageReport(_ document: StallDocument, stalls: [StallRecord]) -> Report {
        switch document {
        case .report(var report):
            report.stalls = stalls
            report.benchmarks = []
            report.comparison = nil
            report.startup = nil
            return report
        case .jsonLines:
            var report = probeReport(stalls: stalls)
            report.environment = Environment(
                host: "unknown (Probe JSON lines record no environment)", os: "unknown", kernel: "unknown",
                cpuModel: "unknown", coreCount: 0, memoryBytes: nil, swiftVersion: "unknown",
                buildConfiguration: "unknown", gitCommit: nil, loadAverage: [], cpuGovernor: nil)
            return report
        }
    }

    /// `3  main  238 ms  cpu-bound  14 samples  <group key>`.
    static func listLine(_ stall: NumberedStall) -> String {
        let record = stall.record
        let milliseconds = Int((record.durationNanoseconds / 1e6).rounded())
        return "\(stall.number)\t\(record.watchdog)\t\(milliseconds) ms\t\(record.classification.rawValue)\t"
            + (record.unsampled == nil ? "\(record.sampleCount) samples" : "not sampled (ended between looks)")
            + "\t\(record.groupKey)"
    }

    /// `1 stall`, `2 stalls`.
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
