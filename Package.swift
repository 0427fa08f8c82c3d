// swift-tools-version: 6.1
import PackageDescription

// Why each dependency is here (keep this list short; see README "Dependencies"):
// - swift-argument-parser: the `perfkit` command line.
// - swift-log / swift-metrics: Probe reports stalls into the logging and metrics
//   backends a service already runs; PerfkitMain builds Probe for the gate's time profiles.
// - malloc-interposer: real allocation counts (LD_PRELOAD'ed into `perfkit run --allocations`).
// - swift-nio (NIOCore only) and swift-service-lifecycle: ProbeNIO watches an event-loop group and
//   ProbeServiceLifecycle runs watchdogs as a Service; each in a product of its own, so that Probe,
//   Harness and perfkit build without them.
// Served on Linux x86-64 and Linux arm64 (aarch64) only; no `platforms:` line, since no Apple platform is.
let package = Package(
    name: "perfkit",
    products: [
        .executable(name: "perfkit", targets: ["PerfkitCLI"]),
        .library(name: "Probe", targets: ["Probe"]),
        // The stall record Probe hands out and writes (and AtomicFile): for a service that names
        // `StallRecord` or reads stall files, without the report model.
        .library(name: "ProbeRecords", targets: ["ProbeRecords"]),
        // Heap profiles: replaces the executable's malloc family (see Sources/Probe/CProbeHeap).
        .library(name: "ProbeHeap", targets: ["ProbeHeap"]),
        // Every loop of a SwiftNIO EventLoopGroup watched (one watchdog per loop).
        .library(name: "ProbeNIO", targets: ["ProbeNIO"]),
        // Watchdogs as a swift-service-lifecycle Service (Hummingbird, Vapor).
        .library(name: "ProbeServiceLifecycle", targets: ["ProbeServiceLifecycle"]),
        .library(name: "Harness", targets: ["Harness"]),
        .library(name: "PixelArt", targets: ["PixelArt"]),
        .library(name: "PerfReport", targets: ["PerfReport"]),
        // The command line for a package's own benchmarks: `PerfkitMain.run(suites:)`.
        .library(name: "PerfkitMain", targets: ["PerfkitMain"]),
        // The results history's data, store protocol and SQLite store, for a store of another kind
        // (Integrations/PostgresHistory) built outside this package.
        .library(name: "PerfkitHistory", targets: ["PerfkitHistory"]),
        // The checks every results store must pass, for such a store's tests.
        .library(name: "HistoryStoreContract", targets: ["HistoryStoreContract"]),
        // `swift package perfkit run|compare|baseline|ci …` over a package's benchmark executables.
        .plugin(name: "PerfkitPlugin", targets: ["PerfkitPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Sources/ by part (docs/layout.md): Bench/ (benchmarks, the gate, the history), Probe/,
        // PixelArt/, DispatchBench/, each with its C shims, suites and commands; Report/ (the report
        // model and its HTML page), Shared/ (ELF and gzip), CLI/ (the `perfkit` executable).
        // What Probe records and Pprof, the report and the CLI read: the stall record, its stacks and
        // call tree (Codable), their profile paths, and atomic file writes. Foundation only, so that
        // Probe links no report model.
        .target(name: "ProbeRecords", path: "Sources/Probe/ProbeRecords"),
        // The report model: plain Codable data shared by every producer and consumer.
        .target(name: "PerfReport", dependencies: ["ProbeRecords"], path: "Sources/Report/PerfReport"),
        // Clock, rusage and perf_event_open access that Swift cannot express directly.
        .target(name: "CHarness", path: "Sources/Bench/CHarness"),
        // perfkit's statistics, one home: the tests of difference the gate and the history share
        // (Mann-Whitney U, Student's t, change points), sample summaries, bootstrap, binomial,
        // quantile and signed-rank intervals; a target of its own, so that History links no runner.
        .target(name: "PerfStatistics", dependencies: ["PerfReport"], path: "Sources/Bench/PerfStatistics"),
        // Declaring, measuring, analysing and comparing benchmarks.
        .target(
            name: "Harness",
            dependencies: ["PerfReport", "PerfStatistics", "CHarness", "PerfkitPlatform", "PerfkitTools"],
            path: "Sources/Bench/Harness"),
        // perfkit's own benchmarks of the harness (suite "Harness": an empty body, the barriers,
        // FixedWork and the gate check's slowdown hook), kept out of the Harness product users link.
        .target(name: "HarnessBenchmarks", dependencies: ["Harness"], path: "Sources/Bench/HarnessBenchmarks"),
        .target(
            name: "DispatchBench",
            dependencies: ["Harness", "PerfReport", "DispatchBenchOpaque", "ELFSymbols", "PerfMachineCode"],
            path: "Sources/DispatchBench/DispatchBench"),
        // Callees DispatchBench must reach across a module boundary (not @inlinable).
        .target(name: "DispatchBenchOpaque", path: "Sources/DispatchBench/DispatchBenchOpaque"),
        // libpng glue (its setjmp/longjmp error handling stays inside C) and the banded IDAT writer
        // (zlib deflate on every core).
        .target(
            name: "CPNG", path: "Sources/PixelArt/CPNG", linkerSettings: [.linkedLibrary("png"), .linkedLibrary("z")]),
        // Streaming (non-temporal) stores for the scaler, which Swift cannot emit.
        .target(name: "CPixelCopy", path: "Sources/PixelArt/CPixelCopy"),
        .target(name: "PixelArt", dependencies: ["CPNG", "CPixelCopy"], path: "Sources/PixelArt/PixelArt"),
        .target(
            name: "PixelArtBenchmarks", dependencies: ["Harness", "PerfReport", "PixelArt"],
            path: "Sources/PixelArt/PixelArtBenchmarks"),
        // One ELF reader (symbols, segments, build ID) for Probe and DispatchBench; Foundation only.
        .target(name: "ELFSymbols", path: "Sources/Shared/ELFSymbols"),
        // What /proc/cpuinfo says, for Harness's and Probe's checks for a user-mode emulator.
        .target(name: "PerfkitPlatform", path: "Sources/Shared/PerfkitPlatform"),
        // Finding and running external tools (llvm-objdump, git, valgrind): never in a service.
        .target(name: "PerfkitTools", path: "Sources/Shared/PerfkitTools"),
        // Machine code read with llvm-objdump (x86-64, aarch64): instructions, where an indirect call's
        // target came from, one function's calls and size, and what changed between two binaries.
        // Below Harness, so that DispatchBench and the gate can both use it.
        .target(
            name: "PerfMachineCode", dependencies: ["ELFSymbols", "PerfkitTools"],
            path: "Sources/Shared/PerfMachineCode"
        ),
        // Probe's signal handler, libunwind and the allocation-free startup marks: must be C.
        .target(name: "CProbe", path: "Sources/Probe/CProbe", linkerSettings: [.linkedLibrary("unwind")]),
        // gzip through the system zlib (one function: deflate's setup is macros Swift cannot call).
        .target(name: "CZlib", path: "Sources/Shared/CZlib", linkerSettings: [.linkedLibrary("z")]),
        // pprof's profile.proto, encoded by hand (no protobuf dependency): stalls as profiles, for
        // `perfkit stalls --format pprof` and Probe's live files (no zlib, so Probe needs none).
        .target(name: "PerfkitPprof", dependencies: ["ProbeRecords"], path: "Sources/Probe/PerfkitPprof"),
        // gzip for the CLI's pprof files.
        .target(name: "PerfkitGzip", dependencies: ["CZlib"], path: "Sources/Shared/PerfkitGzip"),
        // Results over commits: the store (SQLite, loaded at run time), change points along the
        // first-parent history, their wording. `perfkit history` and `run --history` use it.
        .target(
            name: "PerfkitHistory", dependencies: ["PerfStatistics", "PerfReport"], path: "Sources/Bench/PerfkitHistory"
        ),
        // The store contract (Swift Testing checks over any ResultsStore, in-process and through an
        // executable), shared by PerfkitHistoryTests (SQLite) and Integrations/PostgresHistory's tests.
        .target(
            name: "HistoryStoreContract", dependencies: ["PerfkitHistory", "PerfReport"],
            path: "Tests/HistoryStoreContract"),
        // The self-contained HTML report (inline CSS and SVG, no network), and the history's page of
        // trends over commits.
        .target(
            name: "HTMLReport", dependencies: ["PerfReport", "ProbeRecords", "PerfkitHistory"],
            path: "Sources/Report/HTMLReport"),
        .target(
            name: "Probe",
            dependencies: [
                "ProbeRecords", "CProbe", "ELFSymbols", "PerfkitPprof", "PerfkitPlatform",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ], path: "Sources/Probe/Probe",
            exclude: ["README.md"]
        ),
        // The heap sampler: glibc's malloc family with a sampled path that is lock-free and
        // allocation-free (C, like the signal handler whose unwinder it shares); the interposer
        // that makes it the executable's malloc is a target of its own, so benchmarks can link
        // the sampler alone.
        .target(
            name: "CProbeHeap", dependencies: ["CProbe"], path: "Sources/Probe/CProbeHeap",
            linkerSettings: [.linkedLibrary("m")]),
        .target(name: "CProbeHeapInterposer", dependencies: ["CProbeHeap"], path: "Sources/Probe/CProbeHeapInterposer"),
        .target(
            name: "ProbeHeap",
            dependencies: ["Probe", "CProbeHeap", "CProbeHeapInterposer", "CProbe", "PerfkitPprof", "ProbeRecords"],
            path: "Sources/Probe/ProbeHeap"),
        .target(
            name: "ProbeNIO", dependencies: ["Probe", .product(name: "NIOCore", package: "swift-nio")],
            path: "Sources/Probe/ProbeNIO"),
        .target(
            name: "ProbeServiceLifecycle",
            dependencies: ["Probe", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            path: "Sources/Probe/ProbeServiceLifecycle"
        ),
        // The watchdog's costs as benchmarks (suite "Probe").
        .target(
            name: "ProbeBenchmarks",
            dependencies: [
                "Harness", "Probe", "CProbe", "CProbeBenchmarks", "CProbeHeap",
                .product(name: "Metrics", package: "swift-metrics"),
            ], path: "Sources/Probe/ProbeBenchmarks"),
        // A spinning thread that adds up the time taken from it (the cost of a sample to the sampled thread).
        .target(name: "CProbeBenchmarks", path: "Sources/Probe/CProbeBenchmarks"),
        // The generic commands (run, list, compare, baseline, ci, report) over the suites an
        // executable hands in: perfkit's own and a user's benchmark executables share it.
        .target(
            name: "PerfkitMain",
            dependencies: [
                "Harness", "PerfReport", "PerfStatistics", "ProbeRecords", "HTMLReport", "PerfkitHistory",
                "PerfMachineCode",
                "PerfkitPprof", "PerfkitGzip", "Probe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ], path: "Sources/Bench/PerfkitMain"
        ),
        // Builds the package's benchmark executables with SwiftPM and runs them: no tool of its own
        // to locate, so it works the same whether perfkit is a path or a versioned dependency.
        .plugin(
            name: "PerfkitPlugin",
            capability: .command(
                intent: .custom(
                    verb: "perfkit",
                    description: "Build and run the package's benchmark executables; merge their reports."),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "perfkit writes reports under Reports/ (and the baseline or CI summary you name).")
                ])
        ),
        // Probe's commands in `perfkit` (stalls, symbolicate, startup, watch-demo, memory-demo) and the
        // stall documents they write (folded, speedscope, offline symbolization).
        .target(
            name: "ProbeCommands",
            dependencies: [
                "PerfkitMain", "Harness", "PerfReport", "Probe", "ProbeRecords", "ELFSymbols", "HTMLReport",
                "PerfkitPprof",
                "PerfkitGzip",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Sources/Probe/ProbeCommands"
        ),
        // PixelArt's `perfkit scale`.
        .target(
            name: "PixelArtCommands",
            dependencies: [
                "PerfkitMain", "PixelArt", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Sources/PixelArt/PixelArtCommands"
        ),
        .executableTarget(
            name: "PerfkitCLI",
            dependencies: [
                "PerfkitMain", "Harness", "HarnessBenchmarks", "DispatchBench", "PixelArtBenchmarks", "ProbeBenchmarks",
                "ProbeCommands", "PixelArtCommands",
            ], path: "Sources/CLI/PerfkitCLI"
        ),
        .testTarget(name: "PerfReportTests", dependencies: ["PerfReport"]),
        // Atomic writes and the stall record's JSON, pinned byte for byte (stall files, the report's stalls).
        .testTarget(name: "ProbeRecordsTests", dependencies: ["ProbeRecords"]),
        // Mann-Whitney U, Student's t and change points against reference values (scipy, seeded noise).
        .testTarget(name: "PerfStatisticsTests", dependencies: ["PerfStatistics", "PerfReport"]),
        // The results store on real SQLite files (the store contract and SQLite's own checks), and
        // change points over stored runs.
        .testTarget(
            name: "PerfkitHistoryTests",
            dependencies: ["PerfkitHistory", "PerfReport", "PerfStatistics", "HistoryStoreContract"]),
        // What the entry point refuses before parsing: no benchmarks, duplicate ids.
        .testTarget(name: "PerfkitMainTests", dependencies: ["PerfkitMain", "Harness", "ProbeRecords"]),
        .testTarget(name: "HarnessTests", dependencies: ["Harness", "PerfReport", "PerfStatistics", "ELFSymbols"]),
        .testTarget(
            name: "DispatchBenchTests", dependencies: ["DispatchBench", "Harness", "PerfReport", "PerfMachineCode"]),
        // Compiled-code summaries and comparisons over binaries swiftc builds in the test.
        .testTarget(name: "PerfMachineCodeTests", dependencies: ["PerfMachineCode", "PerfkitTools"]),
        // Runs the built `perfkit` executable as a user would: exit codes, messages, files (and the
        // protobuf encoding of its pprof export, unit-tested).
        .testTarget(
            name: "PerfkitCLITests",
            dependencies: ["PerfReport", "ProbeRecords", "PerfkitPprof", "PerfkitGzip", "HistoryStoreContract"],
            exclude: ["Fixtures"]),
        // The regression gate: callgrind parsing, exact-count verdicts, interleaved merging, re-runs.
        .testTarget(name: "HarnessGateTests", dependencies: ["Harness", "HarnessBenchmarks", "PerfReport"]),
        // PngSuite (freely redistributable, licence beside it) is read from disk, not bundled.
        // PerfStatistics: the package's one seeded generator (SplitMix64) for random images.
        .testTarget(name: "PixelArtTests", dependencies: ["PixelArt", "PerfStatistics"], exclude: ["Fixtures"]),
        // A program the Probe tests launch (SIGSTOP/SIGCONT, startup phases).
        .executableTarget(
            name: "probe-test-helper", dependencies: ["Probe", "ProbeHeap"], path: "Sources/Probe/probe-test-helper"),
        .testTarget(
            name: "ProbeTests",
            dependencies: [
                "Probe", "CProbe", "ProbeRecords", "probe-test-helper", "ProbeBenchmarks", "Harness",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            exclude: ["Fixtures"]
        ),
        // A real MultiThreadedEventLoopGroup watched loop by loop.
        .testTarget(
            name: "ProbeNIOTests",
            dependencies: [
                "ProbeNIO", "Probe", "ProbeRecords", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The Service in a real ServiceGroup: start, graceful shutdown, an ongoing stall kept.
        .testTarget(
            name: "ProbeServiceLifecycleTests",
            dependencies: [
                "ProbeServiceLifecycle", "Probe", "ProbeRecords",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HTMLReportTests", dependencies: ["HTMLReport", "PerfReport", "ProbeRecords", "PerfkitHistory"]),
        .testTarget(name: "ELFSymbolsTests", dependencies: ["ELFSymbols"]),
    ]
)
