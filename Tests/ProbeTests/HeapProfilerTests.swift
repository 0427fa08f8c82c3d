import CProbe
import Foundation
import Testing

import Probe

/// ProbeHeap, in `probe-test-helper` (a process of its own, whose heap holds only what it means to): its heap
/// profile read over HTTP by the real `go tool pprof`, and its sampler across fork and exec.
@Suite(.serialized)
struct HeapProfilerTests {
    /// 64 MiB kept in `HeldRecord`s by `storeHeldRecords` and 1 GiB churned in short arrays by
    /// `churnShortArrays`: in use, the storing function first with most of the space, its total
    /// within ±20% of 64 MiB and labelled with the class; allocated, the churning function first.
    @Test func theHeapProfileNamesWhatHoldsMemoryAndWhatChurnsIt() throws {
        let helper = try RunningHelper(["heap-hold"])
        let started = helper.lines(through: "sum=")
        let port = try #require(RunningHelper.value("port", in: started), "\(started)")
        let url = "http://127.0.0.1:\(port)/debug/pprof/heap"
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let inUse = try GoPprof.run(["-sample_index=inuse_space", "-top", url], in: directory)
        #expect(inUse.status == 0, "\(inUse.stderr)")
        let inUseRows = try GoPprof.topRows(inUse.stdout)
        let first = try #require(inUseRows.first)
        #expect(first.contains("storeHeldRecords"), "\(inUse.stdout)")
        #expect(Self.flatPercent(first) ?? 0 >= 80, "\(inUse.stdout)")
        let total = try #require(Self.totalMegabytes(inUse.stdout), "\(inUse.stdout)")
        let expected = 64.0 * 1024 * 1024 / 1e6
        #expect(abs(total - expected) <= expected * 0.2, "in use \(total) MB, kept \(expected) MB")

        let tags = try GoPprof.run(["-sample_index=inuse_space", "-tags", url], in: directory)
        if cprobe_read_memory_errno() == 0 {
            #expect(tags.stdout.contains("HeldRecord"), "\(tags.stdout)")
        } else {
            // qemu-user has no process_vm_readv: no type is named, and the profile says why.
            let raw = try GoPprof.run(["-raw", url], in: directory)
            #expect(raw.stdout.contains("no type labels: process_vm_readv"), "\(raw.stdout.prefix(2000))")
        }
        #expect(tags.stdout.contains("thread_kind"), "\(tags.stdout)")

        let allocated = try GoPprof.run(["-sample_index=alloc_space", "-top", url], in: directory)
        let allocatedFirst = try #require(try GoPprof.topRows(allocated.stdout).first)
        #expect(allocatedFirst.contains("churnShortArrays"), "\(allocated.stdout)")

        // Go's `/allocs` is the same profile with allocated space as its default.
        let allocs = try GoPprof.run(["-top", "http://127.0.0.1:\(port)/debug/pprof/allocs"], in: directory)
        #expect(allocs.stdout.contains("Type: alloc_space"), "\(allocs.stdout)")
        #expect(TestHTTP.get(port, "/debug/pprof/heap?gc=1")?.status == 200)
        let unknown = TestHTTP.get(port, "/debug/pprof/heap?seconds=5")
        #expect(unknown?.status == 400)
        #expect(unknown?.text.contains("seconds") == true, "\(unknown?.text ?? "")")
        #expect(helper.finish() == 0)
    }

    /// Every allocation sampled while another thread forks and execs: each child (which allocates
    /// between fork and exec) runs to its exit, none waits on a sampler's state.
    @Test func forkAndExecWhileSamplingNeverHang() throws {
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["heap-fork", "200"], seconds: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("forks=200"), "\(run.stdout)")
    }

    /// No heap profiler runs in this process: its server says so with 404, and refuses bad parameters.
    @Test func withoutTheHeapProfilerTheRoutesSayWhy() throws {
        let server = ProfileServer(configuration: .init())
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        for route in ["/debug/pprof/heap", "/debug/pprof/allocs"] {
            let reply = try #require(TestHTTP.get(port, route))
            #expect(reply.status == 404)
            #expect(reply.text.contains("ProbeHeap"), "\(reply.text)")
        }
        #expect(TestHTTP.get(port, "/debug/pprof/heap?debug=1")?.status == 400)
    }

    /// `   70.74MB   100%   100%    70.74MB   100%  name` → 100.
    static func flatPercent(_ row: String) -> Double? {
        let fields = row.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 1, fields[1].hasSuffix("%") else { return nil }
        return Double(fields[1].dropLast())
    }

    /// `Showing nodes accounting for 70.74MB, 100% of 70.74MB total` → 70.74.
    static func totalMegabytes(_ top: String) -> Double? {
        guard let line = top.split(separator: "\n").first(where: { $0.contains(" total") }),
            let of = line.range(of: " of ")
        else { return nil }
        let amount = line[of.upperBound...].split(separator: " ").first ?? ""
        if amount.hasSuffix("MB") { return Double(amount.dropLast(2)) }
        if amount.hasSuffix("GB") { return Double(amount.dropLast(2)).map { $0 * 1000 } }
        return nil
    }
}
