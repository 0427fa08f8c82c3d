import Foundation

/// The server's listening socket: non-blocking (the accept loop polls it), close-on-exec.
struct ListeningSocket: Sendable {
    let fd: Int32
    /// The bound TCP port; nil for a Unix socket.
    let port: Int?
    /// The Unix socket's path, removed again on close.
    let path: String?

    static func open(_ address: ProfileServerConfiguration.Address) throws -> ListeningSocket {
        switch address {
        case .loopback(let port): return try tcp(host: "127.0.0.1", port: port)
        case .tcp(let host, let port): return try tcp(host: host, port: port)
        case .unixSocket(let path): return try unix(path: path)
        }
    }

    func close() {
        Glibc.close(fd)
        if let path { unlink(path) }
    }

    private static func failure(_ what: String) -> ProfileServer.StartError {
        let error = errno
        return .init(.socketUnavailable, "\(what) failed: \(String(cString: strerror(error)))", errorNumber: error)
    }

    private static func newSocket(_ family: Int32) throws -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(family, type, 0)
        guard fd >= 0 else { throw failure("socket") }
        return fd
    }

    private static func tcp(host: String, port: Int) throws -> ListeningSocket {
        guard (0...65535).contains(port) else {
            throw ProfileServer.StartError(.invalidConfiguration, "port \(port) is not 0 to 65535")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw ProfileServer.StartError(.invalidConfiguration, "host \(host) is not a numeric IPv4 address")
        }
        let fd = try newSocket(AF_INET)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = failure("bind to \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        // 128 queued: 1,000 connects in a burst overflowed a queue of 16 forty times (each dropped SYN
        // makes its client wait a second to retry); the accept loop takes all queued at each wake.
        guard listen(fd, 128) == 0 else {
            let error = failure("listen")
            Glibc.close(fd)
            throw error
        }
        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return ListeningSocket(fd: fd, port: Int(UInt16(bigEndian: boundAddress.sin_port)), path: nil)
    }

    private static func unix(path: String) throws -> ListeningSocket {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !path.isEmpty, path.utf8.count < capacity else {
            throw ProfileServer.StartError(
                .invalidConfiguration, "Unix socket path must be 1 to \(capacity - 1) bytes: \(path)")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        // A socket file left by a previous instance is replaced; any other file is not touched.
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        let fd = try newSocket(AF_UNIX)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = failure("bind to \(path)")
            Glibc.close(fd)
            throw error
        }
        // Owner only, before listen(): no connection can arrive while it is wider.
        guard chmod(path, 0o600) == 0, listen(fd, 128) == 0 else {
            let error = failure("chmod or listen on \(path)")
            Glibc.close(fd)
            unlink(path)
            throw error
        }
        return ListeningSocket(fd: fd, port: nil, path: path)
    }
}

/// One accepted connection's sends, checks and close: never SIGPIPE (MSG_NOSIGNAL), bounded by
/// the socket's timeouts.
enum Connection {
    static func setTimeouts(_ fd: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends the response whole, or until the client stops taking it or `limit` has passed (a
    /// client reading a byte a second must not hold the server), and closes the connection.
    static func respond(_ fd: Int32, _ response: ProfileHTTP.Response, within limit: Duration) {
        let bytes = [UInt8](response.serialized)
        let deadline = ContinuousClock.now + limit
        var sent = 0
        while sent < bytes.count && ContinuousClock.now < deadline {
            let count = bytes[sent...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            sent += count
        }
        close(fd)
    }

    /// Half-closes, drains what the client still sends (without waiting), then closes: closing with
    /// unread bytes would reset the connection and could lose the response the client has yet to read.
    static func close(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 where recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
        Glibc.close(fd)
    }

    /// True when the client has hung up or reset: POLLRDHUP, POLLHUP or POLLERR, or a read of 0 bytes.
    static func peerGone(_ fd: Int32) -> Bool {
        // POLLRDHUP (Linux, glibc's _GNU_SOURCE): the peer closed or shut down its writing side.
        let pollRDHUP: Int16 = 0x2000
        var entry = pollfd(fd: fd, events: Int16(POLLIN) | pollRDHUP, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        if entry.revents & (pollRDHUP | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 { return true }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR)
    }
}
