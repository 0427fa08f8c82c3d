import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection, used blocking: `ResultsStore` is a synchronous API called from a command's
/// thread. Each call waits on postgres-nio's `EventLoopFuture` API, whose work runs on NIO's own
/// event-loop threads: the waiting thread may be anything but one of those, a thread of Swift
/// concurrency's pool included (a Task awaited behind a semaphore would need a pool thread that
/// the waiting ones may all be holding).
final class PostgresSession {
    let connection: PostgresConnection
    private let logger: Logger

    /// Connects and logs in; the errors are postgres-nio's (`PSQLError`) and NIOSSL's.
    init(_ url: PostgresStoreURL) throws {
        // The store's errors say what went wrong; postgres-nio's own log lines would repeat it.
        logger = Logger(label: "perfkit-history.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        var configuration: PostgresConnection.Configuration
        switch url.endpoint {
        case .socket(let path):
            configuration = .init(
                unixSocketPath: path, username: url.user, password: url.password, database: url.database)
        case .tcp(let host, let port):
            configuration = .init(
                host: host, port: port, username: url.user, password: url.password, database: url.database,
                tls: try Self.tls(url.sslMode))
        }
        if let seconds = url.connectTimeoutSeconds { configuration.options.connectTimeout = .seconds(Int64(seconds)) }
        // Shown in pg_stat_activity: which program holds a connection or a lock.
        configuration.options.additionalStartupParameters = [("application_name", url.applicationName)]
        connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
        ).wait()
    }

    /// libpq's modes on postgres-nio's three: `prefer` and `require` encrypt without checking the
    /// certificate, as libpq does; the `verify-` modes check it against the system's roots.
    static func tls(_ mode: PostgresStoreURL.SSLMode) throws -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return .disable
        case .allow, .prefer:
            tls.certificateVerification = .none
            return .prefer(try NIOSSLContext(configuration: tls))
        case .require:
            tls.certificateVerification = .none
            return .require(try NIOSSLContext(configuration: tls))
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
            return .require(try NIOSSLContext(configuration: tls))
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            return .require(try NIOSSLContext(configuration: tls))
        }
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try connection.query(query, logger: logger).wait().rows
    }

    /// Closes without blocking (the last reference may go anywhere). The connection must outlive
    /// its closing (postgres-nio asserts it), so the completion holds it to the end.
    deinit {
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
