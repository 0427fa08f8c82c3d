// swift-tools-version: 6.1
import PackageDescription

// A package that benchmarks code its authors did not write — swift-collections' Deque, OrderedSet and
// Heap, and the standard library's sort — through perfkit, as a user's CI would. Its scripts measure
// how often perfkit's gates catch a regression compiled into the Heap work (HEAP_REGRESSION_5 or
// HEAP_REGRESSION_10) and how often they cry wolf on unchanged code, on a quiet or a busy machine.
let package = Package(
    name: "collections-gate",
    dependencies: [
        .package(name: "perfkit", path: "../.."),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "CollectionsWork",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "CollectionsBenchmarks",
            dependencies: [
                "CollectionsWork",
                .product(name: "Harness", package: "perfkit"),
                .product(name: "PerfkitMain", package: "perfkit"),
            ]
        ),
    ]
)
