// swift-tools-version: 6.1
import PackageDescription

// A package of its own that benchmarks its library with perfkit, as a user's package would. `name:`
// pins the dependency's identity to "perfkit" whatever the folder of the checkout is called.
let package = Package(
    name: "benchmark-your-package",
    dependencies: [.package(name: "perfkit", path: "../..")],
    targets: [
        .target(name: "JoinKit"),
        .executableTarget(
            name: "JoinKitBenchmarks",
            dependencies: [
                "JoinKit",
                .product(name: "Harness", package: "perfkit"),
                .product(name: "PerfkitMain", package: "perfkit"),
            ]
        ),
        .executableTarget(
            name: "SplitBenchmarks",
            dependencies: [
                "JoinKit",
                .product(name: "Harness", package: "perfkit"),
                .product(name: "PerfkitMain", package: "perfkit"),
            ]
        ),
    ]
)
