import ArgumentParser
import Foundation
import Logging
import PerfkitMain
import Probe

#if canImport(Glibc)
    import Glibc
#endif

package struct MemoryDemoCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "memory-demo",
        abstract:
            "Run an instance into an out-of-memory kill, restart it, and show what Probe's memory watch reported.",
        discussion: """
            Makes a memory cgroup with a low limit (root; cgroup v1's memory controller or cgroup v2), \
            starts this program inside it with a MemoryWatch and a breadcrumb, and lets it allocate until \
            the kernel's OOM killer ends it; its memory warnings are printed as they come. Then it starts \
            the program again on the same breadcrumb, which says how the previous instance ended. Records \
            go to <output>/<timestamp>/memory.jsonl; the cgroup is removed at the end.
            """
    )

    @Option(name: .customLong("limit-mib"), help: "The cgroup's memory limit, MiB.")
    var limitMebibytes = 128

    @OptionGroup var destination: ReportDirectoryOption

    @Option(help: .hidden) var child: String?
    @Option(help: .hidden) var breadcrumb: String?
    @Option(help: .hidden) var jsonLines: String?

    package func validate() throws {
        if limitMebibytes < 32 { throw ValidationError("--limit-mib must be at least 32") }
    }

    package init() {}

    package func run() throws {
        if let child, let breadcrumb, let jsonLines {
            return runChild(child, breadcrumb: breadcrumb, jsonLines: jsonLines)
        }
        if let problem = MemoryLimitedCgroup.unavailable { throw PerfkitError(.unsupported, "memory-demo: \(problem)") }
        let directory = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date()).directory
        let breadcrumb = directory.appendingPathComponent("probe.breadcrumb").path
        let jsonLines = directory.appendingPathComponent("memory.jsonl").path
        let cgroup: MemoryLimitedCgroup
        do {
            cgroup = try MemoryLimitedCgroup(
                name: "perfkit-memory-demo-\(getpid())", limitBytes: UInt64(limitMebibytes) << 20)
        } catch {
            throw PerfkitError(.unsupported, "memory-demo: cannot make a memory cgroup: \(error)")
        }
        defer { cgroup.remove() }
        say("-- cgroup \(cgroup.version) \(cgroup.memoryDirectory), limit \(limitMebibytes) MiB")

        say("-- instance 1: reads a 24 MiB working set of files and keeps 2 MiB more every 50 ms, until the limit")
        let first = try launch("allocate", cgroup: cgroup, breadcrumb: breadcrumb, jsonLines: jsonLines)
        first.waitUntilExit()
        let ending =
            first.terminationReason == .uncaughtSignal
            ? "killed by signal \(first.terminationStatus)\(first.terminationStatus == SIGKILL ? " (SIGKILL)" : "")"
            : "exited with status \(first.terminationStatus)"
        say(
            "-- instance 1 (pid \(first.processIdentifier)) \(ending); the cgroup counted \(cgroup.oomKills.map(String.init) ?? "?") OOM kill(s)"
        )

        say("-- instance 2: started on the same breadcrumb")
        let second = try launch("report", cgroup: cgroup, breadcrumb: breadcrumb, jsonLines: jsonLines)
        second.waitUntilExit()
        say("records: \(jsonLines)")
        let verdict = try? Probe.previousExit(breadcrumb: breadcrumb)
        // The second instance stopped cleanly: what it found is in the records; its own ending is clean.
        guard verdict?.reason == .clean, second.terminationStatus == 0 else {
            throw PerfkitError(.runFailed, "memory-demo: the second instance did not finish cleanly")
        }
        let lines = (try? String(contentsOfFile: jsonLines, encoding: .utf8)) ?? ""
        let killedForMemory = lines.contains("\"reason\":\"killed-for-memory\"")
        let warned = lines.contains("\"type\":\"memory-warning\"")
        if !(killedForMemory && warned) {
            throw PerfkitError(
                .runFailed, "memory-demo: expected memory warnings and a killed-for-memory verdict; see \(jsonLines)")
        }
    }

    /// The parent's lines, flushed at once so that they interleave with the children's in a pipe.
    private func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    private func launch(_ role: String, cgroup: MemoryLimitedCgroup, breadcrumb: String, jsonLines: String) throws
        -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        process.arguments = [
            "-c", cgroup.joinCommand + " && exec \"$0\" \"$@\"", executable, "memory-demo", "--child", role,
            "--breadcrumb", breadcrumb, "--json-lines", jsonLines,
        ]
        try process.run()
        return process
    }

    /// An instance: a memory watch with the breadcrumb, printing the previous exit and each warning.
    private func runChild(_ role: String, breadcrumb: String, jsonLines: String) {
        Startup.mark("started")
        var configuration = MemoryWatchConfiguration(name: "demo", breadcrumbPath: breadcrumb)
        configuration.jsonLinesPath = jsonLines
        configuration.checkInterval = .milliseconds(50)
        configuration.onWarning = { warning in
            print("   memory warning (\(warning.reason.rawValue)): \(warning.message)")
            fflush(nil)
        }
        let watch = MemoryWatch(configuration: configuration)
        do { try watch.start() } catch {
            printError("Error: \(error)\n")
            Glibc.exit(1)
        }
        for limitation in watch.limitations { print("   note: \(limitation)") }
        if let previous = watch.previousExit {
            print(
                "   previous instance (pid \(previous.pid)): \(previous.reason.rawValue), \(previous.confidence.rawValue)"
            )
            for evidence in previous.evidence { print("     - \(evidence)") }
            if let phase = previous.lastPhase { print("     - its last phase: \(phase)") }
        } else {
            print("   no previous instance on this breadcrumb")
        }
        fflush(nil)
        guard role == "allocate" else {
            watch.stop()
            return
        }
        // A working set of files, as a service's data files or a database's pages: read in full every
        // step, so that once the growing heap squeezes the page cache its pages are evicted and read
        // again — the memory stalls (refaults) PSI counts — before the OOM killer comes.
        Startup.mark("reading-working-set")
        let workingSet = URL(fileURLWithPath: jsonLines).deletingLastPathComponent().appendingPathComponent(
            "working-set"
        ).path
        let workingSetBytes = 24 << 20
        let reader = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        if let file = FileManager.default.createFile(atPath: workingSet, contents: Data(count: workingSetBytes))
            ? open(workingSet, O_RDONLY) : nil
        {
            Startup.mark("allocating")
            var blocks: [UnsafeMutableRawPointer] = []
            while true {
                let size = 2 << 20
                if let block = malloc(size) {
                    memset(block, 1, size)  // touched: charged to the cgroup
                    blocks.append(block)
                }
                var offset = 0
                while offset < workingSetBytes {
                    let n = pread(file, reader, 1 << 20, off_t(offset))
                    if n <= 0 { break }
                    offset += n
                }
                usleep(50_000)
            }
        }
        printError("Error: cannot make \(workingSet)\n")
        Glibc.exit(1)
    }
}
