import Testing

@testable import PostgresHistory

/// URLs read as libpq reads them, with its variables and defaults; no server needed.
struct PostgresStoreURLTests {
    @Test func everyPartOfAURL() throws {
        let url = try PostgresStoreURL(
            "postgresql://ci%40team:p%40ss/w:rd@db.internal:6543/perf%20history?sslmode=verify-full&connect_timeout=3",
            environment: [:])
        #expect(url.endpoint == .tcp(host: "db.internal", port: 6543))
        #expect(url.user == "ci@team")
        #expect(url.password == "p@ss/w:rd")
        #expect(url.database == "perf history")
        #expect(url.sslMode == .verifyFull)
        #expect(url.connectTimeoutSeconds == 3)
        #expect(url.applicationName == "perfkit-history")
    }

    @Test func whatTheURLLeavesOutComesFromLibpqsVariables() throws {
        let environment = ["PGUSER": "runner", "PGPASSWORD": "from-env", "PGPORT": "5544", "PGSSLMODE": "disable"]
        let url = try PostgresStoreURL("postgres://db.internal", environment: environment)
        #expect(url.endpoint == .tcp(host: "db.internal", port: 5544))
        #expect(url.user == "runner")
        #expect(url.password == "from-env")
        #expect(url.database == "runner", "libpq's default database is the user's name")
        #expect(url.sslMode == .disable)
        // The URL wins over the variables.
        let given = try PostgresStoreURL("postgresql://ci:given@db:5432/perf?sslmode=require", environment: environment)
        #expect(given.user == "ci" && given.password == "given" && given.sslMode == .require)
        #expect(given.endpoint == .tcp(host: "db", port: 5432))
    }

    @Test func aSocketDirectoryAndAnIPv6Host() throws {
        let socket = try PostgresStoreURL("postgresql://%2Frun%2Fpg/perf?user=ci", environment: [:])
        #expect(socket.endpoint == .socket(path: "/run/pg/.s.PGSQL.5432"))
        let parameter = try PostgresStoreURL("postgresql:///perf?host=/run/pg&port=5433", environment: [:])
        #expect(parameter.endpoint == .socket(path: "/run/pg/.s.PGSQL.5433"))
        let ipv6 = try PostgresStoreURL("postgresql://ci@[::1]:5433/perf", environment: [:])
        #expect(ipv6.endpoint == .tcp(host: "::1", port: 5433))
    }

    @Test(arguments: [
        ("mysql://db/perf", "not a PostgreSQL URL"),
        ("postgresql://db/perf?sslmod=require", "unknown parameter \"sslmod\""),
        ("postgresql://db:http/perf", "port \"http\" is not a port number"),
        ("postgresql://db/perf?sslmode=always", "sslmode \"always\" is not one of"),
        ("postgresql://a,b/perf", "several hosts are not supported"),
        ("postgresql://ci:%zz@db/perf", "the password is not valid percent-encoding"),
    ])
    func aURLItCannotReadIsRefusedWithoutItsPassword(_ url: String, _ problem: String) throws {
        let error = try #require(throws: PostgresStoreURL.Problem.self) {
            try PostgresStoreURL(url, environment: [:])
        }
        #expect(error.description.hasPrefix(problem), "\(error)")
        #expect(!error.description.contains("%zz"))
    }
}
