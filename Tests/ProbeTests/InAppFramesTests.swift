import ProbeRecords
import Testing

@_spi(Tooling) @testable import Probe

/// Stalls grouped by the program's own frames: the system frames below them do not split a group.
@Suite struct InAppFramesTests {
    static let app = "/srv/app/.build/x86_64-unknown-linux-gnu/debug/MyServer"
    static let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    static let dispatch = "/opt/swift/usr/lib/swift/linux/libdispatch.so"

    static func frame(_ symbol: String?, _ module: String?, offset: UInt64 = 0x40) -> StackFrame {
        StackFrame(address: 0x1000 + offset, symbol: symbol, module: module, moduleOffset: offset)
    }

    /// `handle` and `serve` of the app, under `leaves` (innermost first).
    static func appStack(under leaves: [StackFrame]) -> [StackFrame] {
        leaves + [
            frame("MyServer.Handler.handle(request: MyServer.Request) -> ()", app, offset: 0x100),
            frame("MyServer.Server.serve() -> ()", app, offset: 0x200),
            frame("main", app, offset: 0x300),
            frame("__libc_start_call_main", libc, offset: 0x29d90),
        ]
    }

    @Test func theSameAppFunctionThroughDifferentSystemLeavesGetsOneKey() {
        let throughClock = Self.appStack(under: [
            Self.frame("__vdso_clock_gettime", "[vdso]"), Self.frame("__clock_gettime", Self.libc),
            Self.frame("dispatch_time", Self.dispatch),
        ])
        let throughTime = Self.appStack(under: [Self.frame("dispatch_time", Self.dispatch)])
        let inItsOwnLoop = Self.appStack(under: [])
        let key = StallBuilder.groupKey(throughClock)
        #expect(key == StallBuilder.groupKey(throughTime))
        #expect(key == StallBuilder.groupKey(inItsOwnLoop))
        #expect(
            key == "MyServer.Handler.handle(request: MyServer.Request) -> () <- MyServer.Server.serve() -> () <- main")
        // A different app function is a different group, whatever the leaf.
        var elsewhere = throughTime
        elsewhere[1] = Self.frame("MyServer.Cache.rebuild() -> ()", Self.app, offset: 0x180)
        #expect(StallBuilder.groupKey(elsewhere) != key)
    }

    @Test func atMostFiveInAppFramesMakeTheKey() {
        let stack = (0..<8).map { Self.frame("MyServer.f\($0)() -> ()", Self.app, offset: UInt64($0) * 16) }
        let key = StallBuilder.groupKey([Self.frame("__futex_abstimed_wait_common", Self.libc)] + stack)
        #expect(key == (0..<5).map { "MyServer.f\($0)() -> ()" }.joined(separator: " <- "))
    }

    @Test func aStackWithOnlySystemFramesKeepsTheInnermostFrames() {
        let runtimeOnly = [
            Self.frame(nil, Self.libc, offset: 0x86129), Self.frame("__pthread_mutex_lock", Self.libc),
            Self.frame("_dispatch_lane_invoke", Self.dispatch), Self.frame("_dispatch_worker_thread", Self.dispatch),
            Self.frame("start_thread", Self.libc), Self.frame("__clone3", Self.libc),
        ]
        #expect(
            StallBuilder.groupKey(runtimeOnly)
                == "libc.so.6+0x86129 <- __pthread_mutex_lock <- _dispatch_lane_invoke <- _dispatch_worker_thread <- start_thread"
        )
        // A sleep left unsignalled: its syscall stands in for the stack and has no module.
        #expect(
            StallBuilder.groupKey([StackFrame(address: 0, symbol: "[syscall clock_nanosleep]")])
                == "[syscall clock_nanosleep]")
        #expect(StallBuilder.groupKey([]) == "no-stack")
    }

    @Test func aUsersSharedLibraryInItsBuildDirectoryIsInApp() {
        let library = "/home/me/proj/.build/debug/libMyLib.so"
        let stack = [
            Self.frame("__lll_lock_wait", Self.libc),
            Self.frame("MyLib.Store.load() -> ()", library),
            Self.frame("MyServer.main() -> ()", Self.app),
        ]
        #expect(InAppFrames.isInApp(stack[1]))
        #expect(StallBuilder.groupKey(stack) == "MyLib.Store.load() -> () <- MyServer.main() -> ()")
    }

    @Test(arguments: [
        "/lib/x86_64-linux-gnu/libpthread.so.0", "/lib64/ld-linux-x86-64.so.2", "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib64/libstdc++.so.6", "[vdso]",
        // The toolchain's libraries by file name, wherever it is installed.
        "/opt/swift/usr/lib/swift/linux/libswiftCore.so",
        "/usr/share/swift/usr/lib/swift/linux/libswift_Concurrency.so",
        "/app/libswiftGlibc.so", "/app/libdispatch.so", "/app/libBlocksRuntime.so", "/app/libFoundation.so",
        "/app/libFoundationEssentials.so", "/app/lib_FoundationICU.so", "/app/libXCTest.so", "/app/libTesting.so",
        "/app/lib_TestingInterop.so", "/toolchains/6.3/usr/lib/swift/linux/libswiftSynchronization.so.6",
    ])
    func systemModules(path: String) {
        #expect(InAppFrames.isSystemModule(path))
        #expect(!InAppFrames.isInApp(Self.frame("f", path)))
    }

    @Test(arguments: [
        "/srv/app/MyServer", "/home/me/proj/.build/release/libMyLib.so", "/usr/local/bin/server",
        "/app/libswiftyThing.so",
    ])
    func appModules(path: String) {
        #expect(!InAppFrames.isSystemModule(path))
        #expect(InAppFrames.isInApp(Self.frame("f", path)))
    }

    @Test func framesWithoutAModuleFileAreNotInApp() {
        #expect(!InAppFrames.isInApp(StackFrame(address: 0x1234)))
        #expect(!InAppFrames.isInApp(StackFrame(address: 0, symbol: "[syscall futex]")))
        #expect(!InAppFrames.isInApp(Self.frame(nil, "[anon:jit]")))
    }

    /// The runtime's C++ frames read as C++ (`__cxa_demangle`, which the Swift runtime loads), as
    /// Swift's backtracer and `perfkit stalls` show them; a name that is not C++ is left alone.
    @Test func cxxNamesAreDemangled() {
        #expect(
            Demangler.demangle("_ZN5swift34runJobInEstablishedExecutorContextEPNS_3JobE")
                == "swift::runJobInEstablishedExecutorContext(swift::Job*)")
        #expect(
            Demangler.functionName("_ZL23completeTaskWithClosurePN5swift12AsyncContextEPNS_10SwiftErrorE")
                == "completeTaskWithClosure(swift::AsyncContext*, swift::SwiftError*)")
        #expect(Demangler.demangle("_Znot-a-name") == "_Znot-a-name")
        #expect(Demangler.demangle("start_thread") == "start_thread")
    }

    /// `-static-stdlib`: the runtime is in the executable and is recognised by its function names.
    @Test func aStaticallyLinkedRuntimeIsRecognisedByName() {
        for symbol in [
            "swift_retain", "swift_task_switch", "_swift_stdlib_malloc_size", "_ZN5swift9Demangle4NodeC2Ev",
            "swift::runJobInEstablishedExecutorContext(swift::Job*)",
            "dispatch_time", "_dispatch_lane_invoke", "_Block_copy", "CFRunLoopRun", "__CFRunLoopRun",
            "Swift.Array.append(__owned A) -> ()",
            "_Concurrency.Task.sleep(nanoseconds: Swift.UInt64) async throws -> ()",
            "Foundation.JSONDecoder.decode<A where A: Swift.Decodable>(_: A.Type, from: Foundation.Data) throws -> A",
            "(extension in FoundationEssentials):Swift.String.data(using: Foundation.String.Encoding) -> Foundation.Data?",
        ] {
            #expect(!InAppFrames.isInApp(Self.frame(symbol, Self.app)), "\(symbol)")
        }
        for symbol in [
            "MyServer.Handler.handle(request: MyServer.Request) -> ()", "main",
            "protocol witness for Swift.Sequence.makeIterator() -> A.Iterator in conformance MyServer.Rows : Swift.Sequence in MyServer",
            "closure #1 () -> () in MyServer.Server.serve() -> ()", "SwiftUIish.View.body.getter",
        ] {
            #expect(InAppFrames.isInApp(Self.frame(symbol, Self.app)), "\(symbol)")
        }
        // The static runtime under the app: the key starts at the app's frame.
        let stack = Self.appStack(under: [
            Self.frame("swift_retain", Self.app, offset: 0x9000),
            Self.frame("Swift.Array.append(__owned A) -> ()", Self.app),
        ])
        #expect(StallBuilder.groupKey(stack).hasPrefix("MyServer.Handler.handle"))
    }
}
