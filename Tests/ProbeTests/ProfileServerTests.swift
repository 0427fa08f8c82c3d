import CProbe
import Foundation
import PerfkitPprof
import Synchronization
import Testing

@testable import Probe

/// A ``ProfileSource`` whose profile waits, while `holding`, until released or cancelled.
final class FakeProfileSource: ProfileSource {
    struct State {
        var holding = false
        var failure: String?
        var requests: [ProfileRequest] = []
        var running = 0
        var cancellations = 0
        /// The thread each profile and dump was taken on.
        var profileThreads: [Int32] = []
        var dumpThreads: [Int32] = []
    }

    let state = Mutex(State())
    /// More than one stored block's worth, so the gzip body has several.
    let profileBytes: Data

    init(profileBytes: Data = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })) {
        self.profileBytes = profileBytes
    }
    let dumpText = "thread 1 [main, S (sleeping)]:\nmain\n\n"
    let dumpProfile = Data("fake goroutine profile".utf8)

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func profile(_ request: ProfileRequest, isCancelled: @escaping @Sendable () -> Bool) throws -> Data? {
        let failure = state.withLock { state in
            state.requests.append(request)
            state.profileThreads.append(cprobe_gettid())
            state.running += 1
            return state.failure
        }
        defer { state.withLock { $0.running -= 1 } }
        if let failure { throw Failure(description: failure) }
        while state.withLock({ $0.holding }) {
            if isCancelled() {
                state.withLock { $0.cancellations += 1 }
                return nil
            }
            usleep(2000)
        }
        return profileBytes
    }

    func threadDumpText() -> String {
        state.withLock { $0.dumpThreads.append(cprobe_gettid()) }
        return dumpText
    }
    func threadDumpProfile() -> Data { dumpProfile }
}

/// A response as the test client read it.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Plain-socket HTTP for the tests (no URLSession, no FoundationNetworking).
enum TestHTTP {
    static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(result == 0, "connect: \(errno)")
        setTimeout(fd)
        return fd
    }

    static func connect(path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(result == 0, "connect: \(errno)")
        setTimeout(fd)
        return fd
    }

    static func setTimeout(_ fd: Int32) {
        var time = timeval(tv_sec: 30, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    static func request(_ target: String, method: String = "GET", headers: [String] = []) -> String {
        ([("\(method) \(target) HTTP/1.1"), "Host: localhost"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Reads to the end of the stream and parses the response; closes `fd`.
    static func read(_ fd: Int32) -> HTTPReply? {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        guard let end = ProfileHTTP.headEnd(bytes),
            let head = String(validating: bytes[0..<end], as: UTF8.self)
        else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "),
            let status = Int(statusLine.split(separator: " ")[1])
        else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return HTTPReply(status: status, headers: headers, body: Data(bytes[end...]))
    }

    static func get(_ port: Int, _ target: String, method: String = "GET", headers: [String] = []) -> HTTPReply? {
        let fd = connect(port: port)
        send(fd, request(target, method: method, headers: headers))
        return read(fd)
    }

    /// `gzip -dc` over `data`: the served bodies decompressed by a reader that is not ours.
    static func gunzip(_ data: Data) throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("probe-gzip-\(UUID()).gz")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FakeProfileSource.Failure(description: "gzip -dc failed") }
        return bytes
    }
}

/// Waits up to 10 s for `condition` (a behaviour check, not a timing one).
func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<2000 {
        if condition() { return true }
        usleep(5000)
    }
    return condition()
}

@Suite(.serialized)
struct ProfileServerTests {
    func started(
        _ configuration: ProfileServerConfiguration = .init(), source: FakeProfileSource = FakeProfileSource()
    ) throws -> (ProfileServer, Int) {
        let server = ProfileServer(configuration: configuration, source: source)
        try server.start()
        return (server, try #require(server.port))
    }

    @Test func storedGzipIsReadByGzip() throws {
        #expect(StoredGzip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        for count in [0, 1, 65_535, 65_536, 200_000] {
            let data = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let gzip = StoredGzip.gzip(data)
            #expect(gzip.count == 18 + count + 5 * max(1, (count + 65_534) / 65_535))
            #expect(try TestHTTP.gunzip(gzip) == data, "\(count) bytes")
        }
    }

    @Test func everyRouteAnswersWithItsStatusTypeAndBody() throws {
        let source = FakeProfileSource()
        let (server, port) = try started(source: source)
        defer { server.stop() }

        let health = try #require(TestHTTP.get(port, "/health"))
        #expect(health.status == 200 && health.text == "ok\n")
        #expect(health.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(health.headers["connection"] == "close")

        let index = try #require(TestHTTP.get(port, "/debug/pprof/"))
        #expect(index.status == 200 && index.text.contains("/debug/pprof/profile"))
        #expect(index.text.contains("/debug/pprof/goroutine?debug=2"))

        let text = try #require(TestHTTP.get(port, "/debug/pprof/goroutine?debug=2"))
        #expect(text.status == 200 && text.text == source.dumpText)
        #expect(text.headers["content-type"]?.hasPrefix("text/plain") == true)

        for target in ["/debug/pprof/goroutine", "/debug/pprof/goroutine?debug=0"] {
            let dump = try #require(TestHTTP.get(port, target))
            #expect(dump.status == 200 && dump.headers["content-type"] == "application/octet-stream")
            #expect(try TestHTTP.gunzip(dump.body) == source.dumpProfile)
        }

        let profile = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=2&rate=97&mode=wall"))
        #expect(profile.status == 200 && profile.headers["content-type"] == "application/octet-stream")
        #expect(profile.headers["content-length"] == String(profile.body.count))
        #expect(try TestHTTP.gunzip(profile.body) == source.profileBytes)
        let defaults = try #require(TestHTTP.get(port, "/debug/pprof/profile"))
        #expect(defaults.status == 200)
        let kinds = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=1&kind=event-loop,pool"))
        #expect(kinds.status == 200)
        let names = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=1&thread=NIO-ELT,worker"))
        #expect(names.status == 200)
        #expect(
            source.state.withLock { $0.requests } == [
                ProfileRequest(duration: .seconds(2), rate: 97, mode: .wall),
                ProfileRequest(duration: .seconds(30), rate: 100, mode: .cpu),
                ProfileRequest(duration: .seconds(1), threadKinds: [.eventLoop, .pool]),
                ProfileRequest(duration: .seconds(1), threadNames: ["NIO-ELT", "worker"]),
            ])

        let missing = try #require(TestHTTP.get(port, "/debug/pprof/block"))
        #expect(missing.status == 404 && missing.text.contains("/debug/pprof/block"))
        let post = try #require(TestHTTP.get(port, "/debug/pprof/profile", method: "POST"))
        #expect(post.status == 405 && post.headers["allow"] == "GET")
        #expect(source.state.withLock { $0.requests.count } == 4)
    }

    static let badInputs: [(target: String, status: Int, names: String)] = [
        ("/debug/pprof/profile?seconds=0", 400, "seconds=0"),
        ("/debug/pprof/profile?seconds=-1", 400, "seconds=-1"),
        ("/debug/pprof/profile?seconds=1e9", 400, "seconds=1e9"),
        ("/debug/pprof/profile?seconds=abc", 400, "seconds=abc"),
        ("/debug/pprof/profile?seconds=", 400, "seconds="),
        ("/debug/pprof/profile?seconds=301", 400, "seconds=301"),
        ("/debug/pprof/profile?seconds=99999999999", 400, "seconds=99999999999"),
        ("/debug/pprof/profile?rate=0", 400, "rate=0"),
        ("/debug/pprof/profile?rate=1001", 400, "rate=1001"),
        ("/debug/pprof/profile?rate=fast", 400, "rate=fast"),
        ("/debug/pprof/profile?mode=gpu", 400, "mode=gpu"),
        ("/debug/pprof/profile?kind=loop", 400, "kind=loop"),
        ("/debug/pprof/profile?kind=pool,", 400, "kind=pool,"),
        ("/debug/pprof/profile?thread=NIO,,x", 400, "thread=NIO,,x"),
        ("/debug/pprof/profile?mode=%63pu%2", 400, "percent-encoding"),
        ("/debug/pprof/profile?seconds=1&seconds=2", 400, "seconds"),
        ("/debug/pprof/goroutine?debug=1", 400, "debug=1"),
        ("/debug/pprof/goroutine?debug=x", 400, "debug=x"),
    ]

    @Test func badParametersAre400WithOneLineNamingTheParameter() throws {
        let source = FakeProfileSource()
        let (server, port) = try started(source: source)
        defer { server.stop() }
        for bad in Self.badInputs {
            let reply = try #require(TestHTTP.get(port, bad.target))
            #expect(reply.status == bad.status, "\(bad.target)")
            #expect(reply.text.hasPrefix(bad.names) || reply.text.contains(bad.names), "\(bad.target): \(reply.text)")
            #expect(reply.text.hasSuffix("\n") && reply.text.filter(\.isNewline).count == 1, "\(reply.text)")
        }
        // A percent-encoded mode is decoded before it is checked.
        #expect(TestHTTP.get(port, "/debug/pprof/profile?seconds=1&mode=w%61ll")?.status == 200)
        #expect(source.state.withLock { $0.requests.map(\.mode) } == [.wall])

        let capped = try started(.init(longestProfile: .seconds(10)), source: source)
        defer { capped.0.stop() }
        let over = try #require(TestHTTP.get(capped.1, "/debug/pprof/profile?seconds=11"))
        #expect(over.status == 400 && over.text.contains("seconds=11") && over.text.contains("10 s"))
        // Go's default of 30 s is cut to a shorter cap.
        #expect(TestHTTP.get(capped.1, "/debug/pprof/profile")?.status == 200)
        #expect(source.state.withLock { $0.requests.last?.duration } == .seconds(10))
    }

    @Test func malformedAndOversizedRequestsAreRefused() throws {
        let (server, port) = try started()
        defer { server.stop() }
        for raw in [
            "GARBAGE\r\n\r\n", "GET /health\r\n\r\n", "GET /health HTTP/2.0\r\n\r\n",
            "GET /health HTTP/1.1\r\nno colon\r\n\r\n", "GET /health HTTP/1.1\r\n\r\n",
        ] {
            let fd = TestHTTP.connect(port: port)
            TestHTTP.send(fd, raw)
            let reply = TestHTTP.read(fd)
            #expect(reply?.status == 400, "\(raw.debugDescription)")
        }
        let fd = TestHTTP.connect(port: port)
        TestHTTP.send(fd, TestHTTP.request("/health", headers: ["X-Filler: " + String(repeating: "a", count: 9000)]))
        #expect(TestHTTP.read(fd)?.status == 431)
    }

    /// The server takes every profile on one thread of its own and every dump on its accept loop's:
    /// a thread a request took the next of malloc's arenas in turn and kept its free memory there
    /// (a service grew +60 KB a goroutine dump, 2026-12-05).
    @Test func profilesAndDumpsAreTakenOnTheServersOwnThreads() throws {
        let source = FakeProfileSource()
        let (server, port) = try started(source: source)
        defer { server.stop() }
        for _ in 0..<3 {
            #expect(TestHTTP.get(port, "/debug/pprof/profile?seconds=1")?.status == 200)
            #expect(TestHTTP.get(port, "/debug/pprof/goroutine?debug=2")?.status == 200)
        }
        let (profiles, dumps) = source.state.withLock { ($0.profileThreads, $0.dumpThreads) }
        #expect(profiles.count == 3 && Set(profiles).count == 1, "\(profiles)")
        #expect(dumps.count == 3 && Set(dumps).count == 1, "\(dumps)")
        #expect(Set(profiles).isDisjoint(with: dumps))
    }

    @Test func aSecondProfileWhileOneRunsGets429AndThreadDumpsAreStillServed() throws {
        let source = FakeProfileSource()
        source.state.withLock { $0.holding = true }
        let (server, port) = try started(source: source)
        defer { server.stop() }
        let first = TestHTTP.connect(port: port)
        TestHTTP.send(first, TestHTTP.request("/debug/pprof/profile?seconds=5"))
        #expect(eventually { source.state.withLock { $0.running == 1 } })

        let second = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=5"))
        #expect(second.status == 429 && second.text.contains("already running"))
        #expect(second.text.filter(\.isNewline).count == 1)
        let dump = try #require(TestHTTP.get(port, "/debug/pprof/goroutine?debug=2"))
        #expect(dump.status == 200 && dump.text == source.dumpText)

        source.state.withLock { $0.holding = false }
        let reply = try #require(TestHTTP.read(first))
        #expect(reply.status == 200)
        #expect(try TestHTTP.gunzip(reply.body) == source.profileBytes)
        #expect(source.state.withLock { $0.requests.count } == 1)
    }

    @Test func aClientThatHangsUpMidProfileCancelsItAndTheNextIsServed() throws {
        let source = FakeProfileSource()
        source.state.withLock { $0.holding = true }
        let (server, port) = try started(source: source)
        defer { server.stop() }
        let first = TestHTTP.connect(port: port)
        TestHTTP.send(first, TestHTTP.request("/debug/pprof/profile?seconds=300"))
        #expect(eventually { source.state.withLock { $0.running == 1 } })
        close(first)
        #expect(eventually { source.state.withLock { $0.cancellations == 1 && $0.running == 0 } })

        source.state.withLock { $0.holding = false }
        // The slot frees once the abandoned profile's thread has closed the connection (429 until then).
        #expect(eventually { TestHTTP.get(port, "/debug/pprof/profile?seconds=1")?.status == 200 })
    }

    /// Clients that reset the connection before reading their response: the server's sends fail
    /// with EPIPE or ECONNRESET, never a SIGPIPE that would end this process, and it goes on serving.
    @Test func clientsThatResetBeforeTheResponseDoNotStopTheServer() throws {
        let source = FakeProfileSource(profileBytes: Data(repeating: 7, count: 4_000_000))
        let (server, port) = try started(source: source)
        defer { server.stop() }
        for target in ["/debug/pprof/profile?seconds=1", "/debug/pprof/goroutine?debug=2"] {
            for _ in 0..<5 {
                let fd = TestHTTP.connect(port: port)
                TestHTTP.send(fd, TestHTTP.request(target))
                var reset = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
                close(fd)
            }
        }
        #expect(eventually { source.state.withLock { $0.running == 0 } })
        #expect(TestHTTP.get(port, "/health")?.status == 200)
        // The profile slot frees once the last abandoned profile's thread has closed its connection.
        #expect(eventually { TestHTTP.get(port, "/debug/pprof/profile?seconds=1")?.status == 200 })
    }

    @Test func aSourceThatThrowsIs503WithItsMessage() throws {
        let source = FakeProfileSource()
        source.state.withLock { $0.failure = "SIGPROF is taken\nby another profiler" }
        let (server, port) = try started(source: source)
        defer { server.stop() }
        let reply = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=1"))
        #expect(reply.status == 503 && reply.text == "profile failed: SIGPROF is taken by another profiler\n")
    }

    @Test func aSilentClientIsDroppedAndOthersAreServedMeanwhile() throws {
        var configuration = ProfileServerConfiguration()
        configuration.ioTimeout = .milliseconds(300)
        let (server, port) = try started(configuration)
        defer { server.stop() }
        let silent = TestHTTP.connect(port: port)
        TestHTTP.send(silent, "GET /health HTTP/1.1\r\n")
        #expect(TestHTTP.get(port, "/health")?.status == 200)
        #expect(TestHTTP.read(silent)?.status == 408)
    }

    /// Every cooperative-pool thread blocked, in `probe-test-helper` (in this process other tests'
    /// bodies hold pool threads at random): its server, on a thread of its own, still answers.
    @Test func aStarvedPoolStillGetsAnswers() throws {
        let helper = try RunningHelper(["serve-starved"])
        let started = helper.lines(through: "port=")
        let text = started.joined(separator: "\n")
        let blocked = RunningHelper.value("blocked", in: started)
        let port = try #require(RunningHelper.value("port", in: started))
        #expect(blocked == ProcessInfo.processInfo.activeProcessorCount, "\(text)")
        #expect(TestHTTP.get(port, "/health")?.status == 200)
        // A wall profile, served within its seconds + 1 s, shows the blocked handlers' function.
        let asked = DispatchTime.now().uptimeNanoseconds
        let profile = try #require(TestHTTP.get(port, "/debug/pprof/profile?seconds=1&mode=wall"))
        let answered = Double(DispatchTime.now().uptimeNanoseconds - asked) / 1e9
        #expect(profile.status == 200)
        #expect(answered < 2, "answered after \(answered) s")
        let pprof = String(decoding: try TestHTTP.gunzip(profile.body), as: UTF8.self)
        #expect(pprof.contains("waitInsideTaskInHelper"), "the blocked handlers are not in the profile")
        let dump = try #require(TestHTTP.get(port, "/debug/pprof/goroutine?debug=2")?.text)
        #expect(dump.hasPrefix("thread ") && dump.contains("waitInsideTaskInHelper"), "\(dump.prefix(2000))")
        #expect(helper.finish() == 0)
    }

    /// Socket inodes (`socket:[N]`, `pipe:[N]`) this process has open, by /proc/self/fd.
    func openSockets() -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
                .filter { $0.hasPrefix("socket:") || $0.hasPrefix("pipe:") })
    }

    /// Thread ids of this process's threads named `probe-serve` or `probe-profile`.
    func serverThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(
            tasks.filter { task in
                let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
                return name.hasPrefix("probe-serve") || name.hasPrefix("probe-profile")
            })
    }

    /// `stop()` joins the server's threads (an abandoned profile's too) and closes every socket:
    /// the threads and sockets seen while it ran are gone after, and the task and fd counts are back.
    @Test func stopLeavesNoThreadOrSocketBehind() throws {
        let tasksBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        let fdsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        let socketsBefore = openSockets()
        let source = FakeProfileSource()
        source.state.withLock { $0.holding = true }
        let (server, port) = try started(source: source)
        #expect(TestHTTP.get(port, "/debug/pprof/goroutine?debug=2")?.status == 200)
        let profile = TestHTTP.connect(port: port)
        TestHTTP.send(profile, TestHTTP.request("/debug/pprof/profile?seconds=300"))
        #expect(eventually { source.state.withLock { $0.running == 1 } })
        let threads = serverThreads()
        let sockets = openSockets().subtracting(socketsBefore)
        #expect(threads.count == 2, "\(threads)")
        #expect(sockets.count >= 4, "\(sockets)")  // listener, wake pair, the profile's connection and ours

        server.stop()
        #expect(source.state.withLock { $0.cancellations == 1 && $0.running == 0 })
        #expect(TestHTTP.read(profile) == nil)  // closed without a response
        #expect(eventually { serverThreads().isDisjoint(with: threads) })
        // Suites running beside this one open pipes and sockets too: theirs close in their own time.
        #expect(eventually { openSockets().isDisjoint(with: sockets) }, "\(openSockets().intersection(sockets))")
        #expect(
            eventually {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
                let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
                return tasks <= tasksBefore && fds <= fdsBefore
            })
        #expect(!server.isRunning && server.port == nil)
    }

    @Test func nonLoopbackNeedsTheOptionAndATokenAndTheTokenIsChecked() throws {
        for configuration in [
            ProfileServerConfiguration(address: .tcp(host: "0.0.0.0", port: 0)),
            ProfileServerConfiguration(address: .tcp(host: "0.0.0.0", port: 0), allowNonLoopback: true),
            ProfileServerConfiguration(address: .tcp(host: "0.0.0.0", port: 0), bearerToken: "s3cret"),
            ProfileServerConfiguration(address: .tcp(host: "localhost", port: 0)),
            ProfileServerConfiguration(longestProfile: .seconds(301)),
            ProfileServerConfiguration(bearerToken: "two words"),
        ] {
            let server = ProfileServer(configuration: configuration, source: FakeProfileSource())
            #expect(throws: ProfileServer.StartError.self) { try server.start() }
            #expect(!server.isRunning)
            do {
                try server.start()
            } catch let error as ProfileServer.StartError {
                #expect(error.kind == .invalidConfiguration)
            }
        }
        let (server, port) = try started(
            .init(address: .tcp(host: "0.0.0.0", port: 0), allowNonLoopback: true, bearerToken: "s3cret"))
        defer { server.stop() }
        #expect(throws: ProfileServer.StartError.self) { try server.start() }
        let target = "/debug/pprof/goroutine?debug=2"
        let none = try #require(TestHTTP.get(port, target))
        #expect(none.status == 401 && none.headers["www-authenticate"] == "Bearer")
        #expect(TestHTTP.get(port, target, headers: ["Authorization: Bearer s3cre"])?.status == 401)
        #expect(TestHTTP.get(port, target, headers: ["Authorization: Bearer s3cretX"])?.status == 401)
        #expect(TestHTTP.get(port, "/debug/pprof/profile?seconds=1")?.status == 401)
        #expect(TestHTTP.get(port, target, headers: ["Authorization: Bearer s3cret"])?.status == 200)
        #expect(TestHTTP.get(port, "/health")?.status == 200)
    }

    @Test func aUnixSocketIsServedAndRemovedOnStop() throws {
        let path = "/tmp/probe-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = ProfileServer(configuration: .init(address: .unixSocket(path: path)), source: FakeProfileSource())
        try server.start()
        #expect(server.port == nil)
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        let fd = TestHTTP.connect(path: path)
        TestHTTP.send(fd, TestHTTP.request("/health"))
        #expect(TestHTTP.read(fd)?.text == "ok\n")
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The Go toolchain's own HTTP client and pprof reader take the served gzip: what fleet scrapers use.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/go")))
    func goToolPprofReadsTheServedProfile() throws {
        var profile = PprofProfile(sampleTypes: [
            .init(type: "samples", unit: "count"), .init(type: "cpu", unit: "nanoseconds"),
        ])
        profile.mappings = [
            .init(
                id: 1, memoryStart: 0x1000, memoryLimit: 0x2000, fileOffset: 0, filename: "fake", buildID: nil,
                hasFunctions: true, hasFilenames: false, hasLineNumbers: false)
        ]
        profile.functions = [.init(id: 1, name: "fakeHotFunction", systemName: nil)]
        profile.locations = [.init(id: 1, mappingID: 1, address: 0x1010, lines: [.init(functionID: 1)])]
        profile.samples = [.init(locationIDs: [1], values: [3, 30_000_000])]
        profile.periodType = .init(type: "cpu", unit: "nanoseconds")
        profile.period = 10_000_000
        let (server, port) = try started(source: FakeProfileSource(profileBytes: profile.encoded()))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-pprof-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/go")
        process.arguments = [
            "tool", "pprof", "-top", "-symbolize=none", "http://127.0.0.1:\(port)/debug/pprof/profile?seconds=1",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["PPROF_TMPDIR": directory.path, "HOME": directory.path]
        ) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("fakeHotFunction"), "\(text)")
    }
}
