// swift-tools-version: 6.1
import PackageDescription

// A Hummingbird 2 service that embeds Probe the way perfkit's README tells users to: every event
// loop and the cooperative pool watched, the watchdogs run as a swift-service-lifecycle Service,
// stalls in a JSON-lines file and in Prometheus metrics. Its routes make stalls on demand.
//
// Why each dependency: Hummingbird (the server), swift-prometheus (the swift-metrics backend that
// /metrics renders), swift-service-lifecycle and swift-nio (what Hummingbird runs on, named because
// this code uses them directly), swift-argument-parser (the command line; perfkit uses it already), perfkit
// by relative path for Probe, ProbeNIO, ProbeServiceLifecycle and ProbeHeap (which replaces the
// executable's malloc: one branch per call until --heap-profile starts it).
let package = Package(
    name: "watched-service",
    platforms: [.macOS(.v14)],
    dependencies: [
        // `name:` so that the identity is "perfkit" whatever the checkout folder is called.
        .package(name: "perfkit", path: "../.."),
        // No default traits: swift-configuration support and full Foundation are not needed here.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "watched-service",
            dependencies: [
                .product(name: "Probe", package: "perfkit"),
                .product(name: "ProbeNIO", package: "perfkit"),
                .product(name: "ProbeServiceLifecycle", package: "perfkit"),
                .product(name: "ProbeHeap", package: "perfkit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/WatchedService"
        )
    ]
)
