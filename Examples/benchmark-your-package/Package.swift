// swift-tools-version: 6.1
import PackageDescription

// A package of its own that benchmarks its library with perfkit, as a user's package would. `name:`
// pins the dependency's identity to "perfkit" whatever the folder of the checkout is called.
let package = Package(
    name: "benchmark-your-package",
    dependencies: [.package(name: "perfkit", path: "../..")],
    targets: [
        // JOINKIT_INJECT_REGRESSION=1 in the environment compiles a slow path into JoinKit alone, for
        // perfkit's CI check that the gate catches it (`-Xswiftc -D…` would rebuild every module).
        .target(
            name: "JoinKit",
            swiftSettings: Context.environment["JOINKIT_INJECT_REGRESSION"] == "1"
                ? [.define("JOINKIT_INJECT_REGRESSION")] : []
        ),
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
