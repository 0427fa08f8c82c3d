import PerfkitHistory
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresResultsStore {
    /// A failure of the client or the server as one line naming the store. postgres-nio's
    /// `PSQLError` describes itself only generically (so that a server's words do not leak to an
    /// end user); a command's user is the database's user, and the server's message is what they
    /// need. No message here holds the URL's password: `location` is redacted, and neither
    /// postgres-nio's connection errors nor the server's messages repeat it.
    ///
    /// - Parameter opening: While connecting: the database named and whether the command adds (a
    ///   database that does not exist is then not a store not found, since perfkit creates tables, never
    ///   databases).
    static func storeError(
        _ error: any Error, at location: String, opening: (database: String, create: Bool)? = nil
    ) -> StoreError {
        if let error = error as? StoreError { return error }
        func storeError(_ kind: StoreError.Kind, _ problem: String) -> StoreError {
            let line = problem.split(whereSeparator: \.isNewline).joined(separator: " ")
            return StoreError(kind, location: location, problem: line, cause: error)
        }
        if let error = error as? PostgresDecodingError {
            return storeError(
                .notAHistory, "not a perfkit history (column \(error.columnName) is not of the type perfkit writes)")
        }
        guard let error = error as? PSQLError else {
            return storeError(opening == nil ? .failed : .cannotOpen, "\(error)")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "an error"
            let said = "the server says: \(message) (SQLSTATE \(state))"
            switch state {
            case "3D000":
                // invalid_catalog_name: no such database.
                guard let opening else { return storeError(.failed, said) }
                return storeError(
                    opening.create ? .cannotOpen : .notFound,
                    "\(said); create the database first (createdb \(opening.database))")
            case let state where state.hasPrefix("28"):
                // invalid_authorization_specification, invalid_password.
                return storeError(.cannotOpen, said)
            case "40P01", "40001", "55P03":
                // deadlock_detected, serialization_failure, lock_not_available.
                return storeError(.busy, said)
            case "53300", "57P03":
                // too_many_connections, cannot_connect_now (starting up or shutting down).
                return storeError(.cannotOpen, said)
            default:
                return storeError(opening == nil ? .failed : .cannotOpen, said)
            }
        case .connectionError:
            return storeError(.cannotOpen, "cannot connect to the server (\(connectionProblem(error.underlying)))")
        case .sslUnsupported:
            return storeError(.cannotOpen, "the server does not accept TLS, which sslmode asks for")
        case .authMechanismRequiresPassword:
            return storeError(
                .cannotOpen, "the server asks for a password: give it in the URL or in PGPASSWORD")
        case .unsupportedAuthMechanism:
            return storeError(.cannotOpen, "the server asks for a way of logging in that postgres-nio does not support")
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            return storeError(opening == nil ? .failed : .cannotOpen, "the connection to the server was lost")
        default:
            return storeError(opening == nil ? .failed : .cannotOpen, "the PostgreSQL client failed (\(error.code))")
        }
    }

    /// "connection refused", "timed out after 10 s": what went wrong, without NIO's type names.
    static func connectionProblem(_ underlying: (any Error)?) -> String {
        switch underlying {
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return connectionProblem(first.error) }
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host): \(dns)" }
            return "cannot reach \(error.host):\(error.port)"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as ChannelError:
            if case .connectTimeout(let amount) = error {
                return "no answer within \(amount.nanoseconds / 1_000_000_000) s"
            }
            return "\(error)"
        case let error?:
            return "\(error)"
        case nil:
            return "no reason given"
        }
    }
}
