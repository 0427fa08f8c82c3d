import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `postgresql://` (or `postgres://`) URL read as libpq reads one, so that the URL a team already
/// uses with psql works here:
/// `postgresql://[user[:password]@][host][:port][/database][?parameter=value&…]`.
///
/// What the URL leaves out comes from libpq's variables (PGHOST, PGPORT, PGUSER, PGPASSWORD,
/// PGDATABASE, PGSSLMODE), then libpq's defaults: the local socket, port 5432, the login name as
/// user and database. PGPASSWORD keeps a password out of the command line, where `ps` shows it.
struct PostgresStoreURL: Equatable {
    enum Endpoint: Equatable {
        case tcp(host: String, port: Int)
        /// The server's socket file (`<directory>/.s.PGSQL.<port>`).
        case socket(path: String)
    }

    /// libpq's `sslmode`, with its meaning: `prefer` (the default) and `require` encrypt without
    /// checking the certificate, `verify-ca` checks it against the system's roots, `verify-full`
    /// checks the host name too.
    enum SSLMode: String, Equatable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    var endpoint: Endpoint
    var user: String
    var password: String?
    var database: String
    var sslMode: SSLMode
    var connectTimeoutSeconds: Int?
    var applicationName: String

    /// The query parameters read; libpq refuses others, and so does this (a misspelt `sslmode`
    /// silently ignored would connect without the encryption asked for).
    static let parameters: Set<String> = [
        "host", "port", "user", "password", "dbname", "sslmode", "connect_timeout", "application_name",
    ]

    /// A URL that cannot be read; the message never holds the password.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    init(_ url: String, environment: [String: String]) throws(Problem) {
        let lowercased = url.lowercased()
        guard let prefix = ["postgresql://", "postgres://"].first(where: lowercased.hasPrefix) else {
            throw Problem(description: "not a PostgreSQL URL (postgresql://user@host/database)")
        }
        var rest = Substring(url.dropFirst(prefix.count))
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        var query: Substring = ""
        if let questionMark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: questionMark)...]
            rest = rest[..<questionMark]
        }
        // The user part ends at the last "@" (a password may hold an unescaped "@" or "/").
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var hostPort = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            hostPort = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }

        var values: [String: String] = [:]
        if let userInfo {
            let colon = userInfo.firstIndex(of: ":")
            values["user"] = try Self.decoded(userInfo[..<(colon ?? userInfo.endIndex)], "the user name")
            if let colon {
                values["password"] = try Self.decoded(userInfo[userInfo.index(after: colon)...], "the password")
            }
        }
        if !hostPort.isEmpty {
            if hostPort.contains(",") {
                throw Problem(description: "several hosts are not supported: name one")
            }
            var host = hostPort
            if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
                host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
                let after = hostPort[hostPort.index(after: close)...]
                if after.hasPrefix(":") { values["port"] = String(after.dropFirst()) }
            } else if let colon = hostPort.lastIndex(of: ":") {
                host = hostPort[..<colon]
                values["port"] = String(hostPort[hostPort.index(after: colon)...])
            }
            if !host.isEmpty { values["host"] = try Self.decoded(host, "the host") }
        }
        if !path.isEmpty { values["dbname"] = try Self.decoded(path, "the database name") }
        for parameter in query.split(separator: "&") {
            let name = String(parameter.prefix { $0 != "=" })
            guard Self.parameters.contains(name) else {
                throw Problem(
                    description:
                        "unknown parameter \"\(name)\" (perfkit-history reads \(Self.parameters.sorted().joined(separator: ", ")))"
                )
            }
            values[name] = try Self.decoded(parameter.dropFirst(name.count + 1), "parameter \(name)")
        }

        func value(_ name: String, _ variable: String) -> String? {
            values[name] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        let portText = value("port", "PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw Problem(description: "port \"\(portText)\" is not a port number")
        }
        let host = value("host", "PGHOST") ?? Self.defaultSocketDirectory
        endpoint = host.hasPrefix("/") ? .socket(path: "\(host)/.s.PGSQL.\(port)") : .tcp(host: host, port: port)
        user = value("user", "PGUSER") ?? Self.loginName(environment)
        password = value("password", "PGPASSWORD")
        database = value("dbname", "PGDATABASE") ?? user
        let mode = value("sslmode", "PGSSLMODE") ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw Problem(
                description:
                    "sslmode \"\(mode)\" is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.sslMode = sslMode
        if let timeout = values["connect_timeout"] {
            guard let seconds = Int(timeout), seconds > 0 else {
                throw Problem(description: "connect_timeout \"\(timeout)\" is not a number of seconds")
            }
            connectTimeoutSeconds = seconds
        }
        applicationName = values["application_name"] ?? "perfkit-history"
    }

    /// Where Debian's and most Linux packages put the server's socket; libpq's compiled-in default
    /// elsewhere is /tmp.
    static var defaultSocketDirectory: String {
        FileManager.default.fileExists(atPath: "/var/run/postgresql") ? "/var/run/postgresql" : "/tmp"
    }

    /// libpq's default user: the operating system's name for the user running the program.
    static func loginName(_ environment: [String: String]) -> String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment["USER"] ?? "postgres"
    }

    private static func decoded(_ text: Substring, _ what: String) throws(Problem) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw Problem(description: "\(what) is not valid percent-encoding")
        }
        return decoded
    }
}
