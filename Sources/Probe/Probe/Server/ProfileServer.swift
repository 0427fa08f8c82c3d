import CProbe
import Dispatch
import Foundation
import Synchronization

/// Serves whole-process profiles over HTTP the way fleet profilers pull them (Go's
/// net/http/pprof routes), from a thread of its own and POSIX sockets, never the service's event
/// loops or cooperative pool: a service whose every pool thread is blocked still answers.
///
/// One request a connection (`Connection: close`). The accept loop reads up to
/// `connectionLimit` (64) requests at once, the one waiting longest going with a 503 when another
/// comes, and answers all but profiles itself; a profile runs on a
/// thread of its own, one at a time (a second gets 429), and is abandoned when its client hangs up.
public final class ProfileServer: Sendable {
    public let configuration: ProfileServerConfiguration
    private let source: any ProfileSource
    private let listener = Mutex<Listener?>(nil)

    /// A server of this process's profiles and thread dumps (``ProcessProfiler``); ``start()`` listens.
    public convenience init(configuration: ProfileServerConfiguration = ProfileServerConfiguration()) {
        self.init(configuration: configuration, source: ProcessProfiler())
    }

    /// A server answering from `source` (``ProcessProfiler`` in a service, a fake in tests).
    package init(configuration: ProfileServerConfiguration, source: any ProfileSource) {
        self.configuration = configuration
        self.source = source
    }

    deinit { stop() }

    /// The TCP port listened on while running (the one the system chose for port 0); nil for a
    /// Unix socket or when stopped.
    public var port: Int? { listener.withLock { $0?.port } }

    public var isRunning: Bool { listener.withLock { $0 != nil } }

    /// Binds the socket and starts the server's thread; throws ``StartError`` for a configuration
    /// that cannot work or would be unsafe (a non-loopback address without the option and a token).
    public func start() throws {
        try listener.withLock { listener in
            guard listener == nil else { throw StartError(.alreadyRunning, "the profile server is running already") }
            try Self.validate(configuration)
            let socket = try ListeningSocket.open(configuration.address)
            var wake: [Int32] = [-1, -1]
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            guard socketpair(AF_UNIX, type, 0, &wake) == 0 else {
                let error = errno
                socket.close()
                throw StartError(
                    .socketUnavailable, "socketpair failed: \(String(cString: strerror(error)))", errorNumber: error)
            }
            let started = Listener(
                socket: socket, wakeRead: wake[0], wakeWrite: wake[1], configuration: configuration, source: source)
            started.threads.enter()
            ProbeThreads.start(name: "probe-serve") {
                started.acceptLoop()
                started.threads.leave()
            }
            started.threads.enter()
            ProbeThreads.start(name: "probe-profile") {
                started.profileLoop()
                started.threads.leave()
            }
            listener = started
        }
    }

    /// Stops accepting, abandons a running profile (its `isCancelled` turns true), waits for the
    /// server's threads to finish and closes every socket it opened. A no-op when stopped.
    public func stop() {
        // Under the lock throughout: a start() meanwhile must not bind a Unix socket path this
        // stop is about to remove. The server's threads never take this lock.
        listener.withLock { listener in
            guard let stopping = listener else { return }
            listener = nil
            stopping.stopping.store(true, ordering: .sequentiallyConsistent)
            var byte: UInt8 = 1
            _ = write(stopping.wakeWrite, &byte, 1)
            stopping.profileWake.signal()
            stopping.threads.wait()
            stopping.socket.close()
            Glibc.close(stopping.wakeRead)
            Glibc.close(stopping.wakeWrite)
        }
    }

    static func validate(_ configuration: ProfileServerConfiguration) throws {
        let cap = ProfileRequest.longestDuration
        guard configuration.longestProfile >= .seconds(1), configuration.longestProfile <= cap else {
            throw StartError(
                .invalidConfiguration,
                "longestProfile \(configuration.longestProfile) must be 1 s to \(cap.components.seconds) s")
        }
        if let token = configuration.bearerToken,
            token.isEmpty || token.unicodeScalars.contains(where: { $0.value <= 32 || $0.value == 127 })
        {
            throw StartError(
                .invalidConfiguration, "bearerToken must be non-empty, without spaces or control characters")
        }
        guard case .tcp(let host, _) = configuration.address else { return }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            throw StartError(.invalidConfiguration, "host \(host) is not a numeric IPv4 address")
        }
        let isLoopback = UInt32(bigEndian: address.s_addr) >> 24 == 127
        if !isLoopback && !(configuration.allowNonLoopback && configuration.bearerToken != nil) {
            throw StartError(
                .invalidConfiguration,
                "listening on \(host), outside loopback, needs allowNonLoopback and a bearerToken: profiles show the service's code and threads"
            )
        }
    }
}

/// The running server's sockets, threads and state, shared by its accept loop and profile thread.
private final class Listener: Sendable {
    let socket: ListeningSocket
    let wakeRead: Int32
    let wakeWrite: Int32
    let configuration: ProfileServerConfiguration
    let source: any ProfileSource
    let stopping = Atomic<Bool>(false)
    let profileRunning = Atomic<Bool>(false)
    /// The profile the profile thread is to take next, and its client; signalled for it and at stop.
    let nextProfile = Mutex<(request: ProfileRequest, fd: Int32)?>(nil)
    let profileWake = DispatchSemaphore(value: 0)
    /// The accept loop and the profile thread: `stop()` waits for both.
    let threads = DispatchGroup()

    var port: Int? { socket.port }

    init(
        socket: ListeningSocket, wakeRead: Int32, wakeWrite: Int32, configuration: ProfileServerConfiguration,
        source: any ProfileSource
    ) {
        self.socket = socket
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.configuration = configuration
        self.source = source
    }

    /// A connection whose request head has not fully arrived.
    private struct Pending {
        var fd: Int32
        var bytes: [UInt8] = []
        var deadline: ContinuousClock.Instant
    }

    /// Polls the wake socket, the listening socket and every connection waiting for its request
    /// (at most `connectionLimit`); answers each complete request.
    func acceptLoop() {
        var pending: [Pending] = []
        // A descriptor kept in reserve: when the service has used every one it may open (EMFILE),
        // it is given up for a moment to accept a client and tell it so (503), then taken back.
        var spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            for connection in pending { Connection.close(connection.fd) }
            if spare >= 0 { Glibc.close(spare) }
        }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            // Always listening: at the limit the connection waiting longest makes room (acceptQueued).
            var fds = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0),
            ]
            for connection in pending { fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)) }
            let now = ContinuousClock.now
            let timeout = pending.map { milliseconds(from: now, to: $0.deadline) }.min() ?? -1
            guard poll(&fds, nfds_t(fds.count), Int32(timeout)) >= 0 || errno == EINTR else { return }
            if fds[0].revents != 0 { return }
            let first = 2
            var kept: [Pending] = []
            for (index, var connection) in pending.enumerated() {
                if fds[first + index].revents != 0 {
                    if read(into: &connection) { kept.append(connection) }
                } else if ContinuousClock.now >= connection.deadline {
                    respond(connection.fd, .text(408, "request not received in time"))
                } else {
                    kept.append(connection)
                }
            }
            pending = kept
            if fds[1].revents & Int16(POLLIN) != 0 { acceptQueued(into: &pending, spare: &spare) }
        }
    }

    /// Accepts every connection queued (a queue left full drops new clients' SYNs: each then waits
    /// a second or more to retry). At the limit, the connection waiting longest for its request
    /// makes room with a 503, so clients that hold connections open without asking (a flood, a slow
    /// loris) cannot keep a prompt request out; out of descriptors, the spare one is given up to say so.
    private func acceptQueued(into pending: inout [Pending], spare: inout Int32) {
        for _ in 0..<(configuration.connectionLimit * 4) {
            let fd = cprobe_accept_cloexec(socket.fd)
            if fd >= 0 {
                Connection.setTimeouts(fd, configuration.ioTimeout)
                if pending.count >= configuration.connectionLimit {
                    let oldest = pending.removeFirst()
                    respond(oldest.fd, .text(503, "too many connections waiting to send a request; try again"))
                }
                pending.append(Pending(fd: fd, deadline: .now + configuration.ioTimeout))
            } else if (errno == EMFILE || errno == ENFILE) && spare >= 0 {
                Glibc.close(spare)
                let refused = cprobe_accept_cloexec(socket.fd)
                if refused >= 0 {
                    Connection.setTimeouts(refused, configuration.ioTimeout)
                    respond(refused, .text(503, Self.outOfDescriptors()))
                }
                spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
                if spare < 0 { usleep(100_000) }
                return
            } else {
                // The queue is empty (EAGAIN), or the system is short of memory or descriptors: the
                // connection stays queued and the socket readable, so back off rather than spin.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(100_000) }
                return
            }
        }
    }

    /// "out of file descriptors: this process has all 1024 it may open (RLIMIT_NOFILE); try again later".
    private static func outOfDescriptors() -> String {
        var limit = rlimit()
        let most =
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
            ? " all \(limit.rlim_cur)" : " every one"
        return "out of file descriptors: this process has\(most) it may open (RLIMIT_NOFILE); try again later"
    }

    private func milliseconds(from now: ContinuousClock.Instant, to deadline: ContinuousClock.Instant) -> Int {
        let left = now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int(min(seconds, 3600)) * 1000 + Int(attoseconds / 1_000_000_000_000_000) + 1
    }

    /// Reads what arrived; false once the connection is answered or gone (its fd closed or handed on).
    private func read(into connection: inout Pending) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = recv(connection.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
        guard count > 0 else {
            Connection.close(connection.fd)
            return false
        }
        connection.bytes += chunk[0..<count]
        if let end = ProfileHTTP.headEnd(connection.bytes), end <= ProfileHTTP.headLimit {
            handle(connection.fd, head: Array(connection.bytes[0..<end]))
            return false
        }
        if connection.bytes.count >= ProfileHTTP.headLimit {
            respond(
                connection.fd, .text(431, "request line and headers longer than \(ProfileHTTP.headLimit) bytes"))
            return false
        }
        return true
    }

    /// Answers one request; a profile is handed to a thread of its own with the connection.
    private func handle(_ fd: Int32, head: [UInt8]) {
        let route = ProfileHTTP.parse(head).flatMap { request in
            ProfileRoute.resolve(
                request, bearerToken: configuration.bearerToken, longestProfile: configuration.longestProfile)
        }
        switch route {
        case .failure(let error):
            var response = error.response
            if error.status == 405 { response.headers.append(("Allow", "GET")) }
            if error.status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
            respond(fd, response)
        case .success(.health):
            respond(fd, .text(200, "ok"))
        case .success(.index):
            respond(
                fd,
                .init(status: 200, contentType: "text/plain; charset=utf-8", body: Data(ProfileRoute.indexText.utf8)))
        case .success(.threadDumpText):
            respond(
                fd,
                .init(status: 200, contentType: "text/plain; charset=utf-8", body: Data(source.threadDumpText().utf8)))
        case .success(.threadDumpProfile):
            respond(fd, Self.pprof(source.threadDumpProfile(), name: "goroutine"))
        case .success(.flight):
            guard let recorder = FlightRecorder.running else {
                respond(fd, .text(404, "no flight recorder runs in this process (start a FlightRecorder)"))
                return
            }
            respond(fd, Self.pprof(recorder.profile(), name: "flight"))
        case .success(.heap(let allocations)):
            guard let heap = HeapProfiles.running else {
                respond(fd, .text(404, HeapProfiles.notRunning))
                return
            }
            respond(fd, Self.pprof(heap.heapProfile(allocations: allocations), name: allocations ? "allocs" : "heap"))
        case .success(.profile(let request)):
            guard
                profileRunning.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent)
                    .exchanged
            else {
                respond(fd, .text(429, "a profile is already running: one at a time, try again after it"))
                return
            }
            nextProfile.withLock { $0 = (request, fd) }
            profileWake.signal()
        }
    }

    /// Takes each profile asked for, one at a time, until the server stops. One thread for the
    /// server's life: a thread a profile took the next of malloc's arenas in turn and left what the
    /// profile freed there, so the service's memory grew with every arena (2026-12-05).
    func profileLoop() {
        while true {
            profileWake.wait()
            let next = nextProfile.withLock { next in
                defer { next = nil }
                return next
            }
            guard !stopping.load(ordering: .sequentiallyConsistent) else {
                if let next { Connection.close(next.fd) }
                return
            }
            if let next { profile(next.request, fd: next.fd) }
        }
    }

    /// Takes the profile, abandoned as soon as the client hangs up or the server stops.
    private func profile(_ request: ProfileRequest, fd: Int32) {
        // Once the source has returned, the fd is closed and may be reused: a late call must not poll it.
        let answered = AnsweredFlag()
        let isCancelled: @Sendable () -> Bool = { [self] in
            answered.isSet || stopping.load(ordering: .sequentiallyConsistent) || Connection.peerGone(fd)
        }
        let result = Result { try source.profile(request, isCancelled: isCancelled) }
        answered.set()
        // The slot frees before the response goes out: a client that has read it may ask again at once.
        profileRunning.store(false, ordering: .sequentiallyConsistent)
        switch result {
        case .success(let data?): respondToProfile(fd, Self.pprof(data, name: "profile"))
        case .success(nil): Connection.close(fd)
        case .failure(let error): respondToProfile(fd, .text(503, "profile failed: \(error)"))
        }
    }

    /// Answers on the accept loop's thread: within the I/O timeout.
    private func respond(_ fd: Int32, _ response: ProfileHTTP.Response) {
        Connection.respond(fd, response, within: configuration.ioTimeout)
    }

    /// Answers a profile on its own thread: a larger body, so longer (it holds no other client up).
    private func respondToProfile(_ fd: Int32, _ response: ProfileHTTP.Response) {
        Connection.respond(fd, response, within: configuration.ioTimeout * 6)
    }

    private static func pprof(_ data: Data, name: String) -> ProfileHTTP.Response {
        .init(
            status: 200, contentType: "application/octet-stream",
            headers: [("Content-Disposition", "attachment; filename=\"\(name)\"")], body: StoredGzip.gzip(data))
    }
}

/// Set once a profile's source has returned.
private final class AnsweredFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
