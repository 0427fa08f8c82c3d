import Testing

@_spi(Tooling) import PerfkitHistory

/// A URL's password never reaches a message: every place it can stand in a libpq URL.
struct StoreLocationTests {
    @Test(arguments: [
        ("postgresql://ci:s3cret@db.internal:5432/perf", "postgresql://ci:***@db.internal:5432/perf"),
        ("postgres://ci:p@ss/w:rd@db/perf?sslmode=require", "postgres://ci:***@db/perf?sslmode=require"),
        (
            "postgresql://db/perf?user=ci&password=s3cret&sslmode=require",
            "postgresql://db/perf?user=ci&password=***&sslmode=require"
        ),
        ("postgresql://ci@db/perf", "postgresql://ci@db/perf"),
        ("POSTGRESQL://ci:s3cret@db", "POSTGRESQL://ci:***@db"),
        ("Reports/history.sqlite", "Reports/history.sqlite"),
        ("/tmp/a:b@c.sqlite", "/tmp/a:b@c.sqlite"),
    ])
    func aPasswordIsRedacted(_ location: String, _ redacted: String) {
        #expect(StoreLocation.redacted(location) == redacted)
    }

    @Test func aSchemeIsReadOnlyFromAURL() {
        #expect(StoreLocation.scheme(of: "PostgreSQL://db/perf") == "postgresql")
        #expect(StoreLocation.scheme(of: "Reports/history.sqlite") == nil)
        #expect(StoreLocation.scheme(of: "./odd://name.sqlite") == nil)
    }
}
