import ProbeRecords

/// Which frames of a stack are the program's own code ("in-app", as Sentry calls it) rather than
/// the C library, the kernel's vDSO or the Swift runtime and toolchain libraries.
///
/// Stalls are grouped by the innermost in-app frames because the system frames below them vary
/// with what the app function happened to be doing at the sampled moment: a busy loop in
/// `myFunc` is caught in `dispatch_time <- myFunc` once and in
/// `__vdso_clock_gettime <- __clock_gettime <- dispatch_time <- myFunc` the next time. Keyed by
/// all innermost frames these are two groups; keyed by the app's frames they are one, which is
/// what a reader of the stall report wants to count. The stacks themselves keep every frame.
///
/// A frame is a system frame when its module is
/// - under `/lib`, `/lib64`, `/usr/lib` or `/usr/lib64` (libc, libpthread, libstdc++, …),
/// - the vDSO (`[vdso]`),
/// - a Swift runtime or toolchain library, recognised by its file name wherever the toolchain
///   is installed (`/opt/swift`, `/usr/share/swift`, or copied next to the app in a container
///   image): `libswiftCore.so`, `libswift_Concurrency.so` and the other `libswift*`,
///   `libdispatch.so`, `libBlocksRuntime.so`, `libFoundation*.so`, `lib_Foundation*.so`,
///   `libXCTest.so`, `libTesting.so`, `lib_Testing*.so`.
///
/// Frames without a module file (a syscall that stood in for a stack, anonymous or JIT memory)
/// are not in-app either. Every other module counts as the app's, including the shared libraries
/// of its own package (`.build/debug/libMyLib.so`) and its dependencies.
///
/// A statically linked Swift runtime (`-static-stdlib`) puts the runtime in the executable,
/// where the module says nothing. Its functions are recognised by name instead, which is cheap
/// and covers most of them: the runtime's C entry points (`swift_retain`, `swift_task_switch`,
/// `_swift_…`), its C++ (`swift::…`, or `_ZN5swift…` where it stays mangled), libdispatch (`dispatch_…`,
/// `_dispatch_…`), the blocks runtime (`_Block_…`), CoreFoundation (`CF…`, `_CF…`, `__CF…`), and
/// Swift functions whose demangled name starts with a toolchain module (`Swift.`,
/// `_Concurrency.`, `Foundation.`, …). Probe's own code (its Swift modules, its C functions
/// `cprobe_…`) is never the app's either: a stall is never blamed on the watchdog. Not recognised: generic specialisations and closures of
/// those functions (`generic specialization <…> of Swift.…`), which are named after the app's
/// types as much as the library's, and the C library of a fully static executable
/// (`-static-executable`), whose function names cannot be told from the app's own C.
enum InAppFrames {
    /// The frames a stall is grouped by: the innermost `limit` in-app frames, innermost first;
    /// the innermost `limit` frames when the stack has no in-app frame at all (a stall entirely
    /// in the runtime, or a syscall standing in for the stack).
    static func groupingFrames(_ stack: [StackFrame], limit: Int = 5) -> [StackFrame] {
        let inApp = stack.lazy.filter(isInApp).prefix(limit)
        return inApp.isEmpty ? Array(stack.prefix(limit)) : Array(inApp)
    }

    /// True when the frame's module is one of the program's own files and its function is not
    /// a recognisable part of a statically linked Swift runtime.
    static func isInApp(_ frame: StackFrame) -> Bool {
        guard let module = frame.module, module.hasPrefix("/"), !isSystemModule(module) else { return false }
        guard let symbol = frame.symbol else { return true }
        return !isRuntimeSymbol(symbol)
    }

    /// True for the C library, the vDSO and the Swift toolchain's libraries (see the type's comment).
    static func isSystemModule(_ path: String) -> Bool {
        if path == "[vdso]" { return true }
        if systemDirectories.contains(where: { path.hasPrefix($0) }) { return true }
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        guard fileName.hasPrefix("lib"), let soRange = fileName.range(of: ".so") else { return false }
        // `libswiftCore.so.5` and `libswiftCore.so` have the same stem, `swiftCore`.
        let stem = fileName[fileName.index(fileName.startIndex, offsetBy: 3)..<soRange.lowerBound]
        if toolchainLibraryStems.contains(String(stem)) { return true }
        if toolchainLibraryStemPrefixes.contains(where: { stem.hasPrefix($0) }) { return true }
        // `libswiftCore`, `libswiftGlibc`, `libswift_Concurrency`, … but not a user's `libswiftyThing`.
        if stem.hasPrefix("swift"), let next = stem.dropFirst(5).first, next.isUppercase || next == "_" {
            return true
        }
        return false
    }

    /// True for the functions of a Swift runtime linked into the executable (see the type's comment).
    static func isRuntimeSymbol(_ symbol: String) -> Bool {
        if runtimeSymbolPrefixes.contains(where: { symbol.hasPrefix($0) }) { return true }
        // CoreFoundation's public functions: `CFRunLoopRun`, `CFStringCreate…`.
        if symbol.hasPrefix("CF"), let next = symbol.dropFirst(2).first, next.isUppercase { return true }
        if let dot = symbol.firstIndex(of: "."), toolchainSwiftModules.contains(String(symbol[..<dot])) {
            return true
        }
        // `(extension in Foundation):Swift.String.data(…)`: Foundation's extension of a stdlib type.
        if symbol.hasPrefix("(extension in "), let colon = symbol.firstIndex(of: ")") {
            let module = symbol[symbol.index(symbol.startIndex, offsetBy: 14)..<colon]
            return toolchainSwiftModules.contains(String(module))
        }
        return false
    }

    private static let systemDirectories = ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"]

    /// `lib<stem>.so` of the toolchain's libraries that do not start with `swift`.
    private static let toolchainLibraryStems: Set<String> = [
        "dispatch", "BlocksRuntime", "XCTest", "Testing",
    ]

    /// `libFoundation.so`, `libFoundationEssentials.so`, … and the toolchain's private libraries
    /// (`lib_FoundationICU.so`, `lib_TestingInterop.so`, …).
    private static let toolchainLibraryStemPrefixes = ["Foundation", "_Foundation", "_Testing", "_InternalSwift"]

    private static let runtimeSymbolPrefixes = [
        "swift_", "_swift_", "__swift_", "swift::", "_ZN5swift", "_ZNK5swift", "dispatch_", "_dispatch_", "_Block_",
        "_CF", "__CF",
        // Probe's own C (the pool's job trampoline is on every pool job's stack): never the app's.
        "cprobe_",
    ]

    /// Swift modules of the toolchain, as the first component of a demangled name.
    private static let toolchainSwiftModules: Set<String> = [
        "Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "RegexBuilder", "Synchronization", "Observation",
        "Distributed", "Dispatch", "Glibc", "Musl", "Foundation", "FoundationEssentials",
        "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "XCTest", "Testing",
        // Probe itself, linked into the service: its frames are never what stalls the service.
        "Probe", "ProbeNIO", "ProbeServiceLifecycle",
    ]
}
