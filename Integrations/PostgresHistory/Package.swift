// swift-tools-version: 6.1
import PackageDescription

// perfkit's results history on PostgreSQL, for teams whose CI runners all write one store. A package
// of its own: postgres-nio (with the SwiftNIO, TLS and crypto packages under it) takes minutes to
// build, which perfkit's own build (`make test` builds every target of perfkit's package) and every
// package that links Harness or PerfkitMain would otherwise pay.
let package = Package(
    name: "PostgresHistory",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PostgresHistory", targets: ["PostgresHistory"]),
        // perfkit's `history` commands with PostgreSQL stores: `perfkit-history history add … --store postgresql://…`.
        .executable(name: "perfkit-history", targets: ["PerfkitHistoryTool"]),
    ],
    dependencies: [
        // `name:` pins the identity to "perfkit" whatever the checkout's folder is called.
        .package(name: "perfkit", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Already under postgres-nio; named here because the store uses them directly (the event
        // loops, TLS for sslmode, a silent logger).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // PostgresResultsStore: perfkit's ResultsStore in a PostgreSQL database.
        .target(
            name: "PostgresHistory",
            dependencies: [
                .product(name: "PerfkitHistory", package: "perfkit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "PerfkitHistoryTool",
            dependencies: [
                "PostgresHistory",
                .product(name: "PerfkitHistory", package: "perfkit"),
                .product(name: "PerfkitMain", package: "perfkit"),
            ]
        ),
        // perfkit's store contract against a real server (PERFKIT_TEST_POSTGRES_URL; the script
        // scripts/postgres-history-check.sh starts one), through the store and through perfkit-history.
        .testTarget(
            name: "PostgresHistoryTests",
            dependencies: [
                "PostgresHistory", "PerfkitHistoryTool",
                .product(name: "PerfkitHistory", package: "perfkit"),
                .product(name: "HistoryStoreContract", package: "perfkit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
