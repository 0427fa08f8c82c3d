import Foundation
import Logging
import Probe
import ProbeServiceLifecycle
import ServiceLifecycle
import Testing

/// A source that answers at once (the server's own behaviour is ProbeTests' ProfileServerTests).
struct InstantProfileSource: ProfileSource {
    func profile(_ request: ProfileRequest, isCancelled: @escaping @Sendable () -> Bool) throws -> Data? { Data() }
    func threadDumpText() -> String { "" }
    func threadDumpProfile() -> Data { Data() }
}

/// `GET /health` over a plain socket: the status code, or nil when nothing answered.
func healthStatus(port: Int) -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return nil }
    let request = Array("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = recv(fd, &buffer, buffer.count, 0)
    guard count > 12 else { return nil }
    return Int(String(decoding: buffer[9..<12], as: UTF8.self))
}

@Suite(.serialized)
struct WatchdogServiceProfileServerTests {
    /// The profile server runs while the group runs, and is stopped with the watchdogs.
    @Test func theProfileServerRunsWithTheWatchdogs() async throws {
        var configuration = WatchdogConfiguration(name: "served", threshold: .milliseconds(100))
        configuration.metrics = false
        let watchdog = Watchdog(watching: .queue(DispatchQueue(label: "served")), configuration: configuration)
        let server = ProfileServer(configuration: .init(), source: InstantProfileSource())
        let group = ServiceGroup(
            services: [WatchdogService(watchdogs: [watchdog], profileServer: server)], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        for _ in 0..<500 where server.port == nil { try await Task.sleep(for: .milliseconds(10)) }
        let port = try #require(server.port)
        #expect(watchdog.isRunning)
        #expect(healthStatus(port: port) == 200)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!server.isRunning && !watchdog.isRunning)
        #expect(healthStatus(port: port) == nil)
    }

    /// A server that cannot start fails the run with its error and leaves no watchdog running.
    @Test func aServerThatCannotStartFailsTheRun() async throws {
        var configuration = WatchdogConfiguration(name: "unserved", threshold: .milliseconds(100))
        configuration.metrics = false
        let watchdog = Watchdog(watching: .queue(DispatchQueue(label: "unserved")), configuration: configuration)
        let server = ProfileServer(
            configuration: .init(address: .tcp(host: "0.0.0.0", port: 0)), source: InstantProfileSource())
        let error = await #expect(throws: ProfileServer.StartError.self) {
            try await WatchdogService(watchdogs: [watchdog], profileServer: server).run()
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(!watchdog.isRunning && !server.isRunning)
    }
}
