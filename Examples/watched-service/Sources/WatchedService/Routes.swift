import Hummingbird
import NIOCore
import NIOPosix
import Prometheus
import Synchronization

/// The group's event loops, indexed in iteration order: the order ProbeNIO names their watchdogs
/// in (`event-loop-I`).
struct IndexedEventLoops: Sendable {
    let loops: [any EventLoop]

    init(_ group: any EventLoopGroup) { loops = Array(group.makeIterator()) }

    func index(of loop: any EventLoop) -> Int { loops.firstIndex { $0 === loop } ?? -1 }

    /// The loop `loop=I` names, or the one of the request's own connection.
    func loop(for request: Request, context: LoopRequestContext) throws -> any EventLoop {
        guard let text = request.uri.queryParameters.get("loop") else { return context.eventLoop }
        guard let index = Int(text), loops.indices.contains(index) else {
            throw HTTPError(.badRequest, message: "loop must be 0…\(loops.count - 1)\n")
        }
        return loops[index]
    }
}

/// The `ms` query parameter: 1…60000.
func milliseconds(_ request: Request) throws -> Int {
    guard let ms = request.uri.queryParameters.get("ms", as: Int.self), (1...60_000).contains(ms) else {
        throw HTTPError(.badRequest, message: "ms must be a whole number of milliseconds, 1…60000\n")
    }
    return ms
}

func makeRouter(group: any EventLoopGroup, registry: PrometheusCollectorRegistry) -> Router<LoopRequestContext> {
    let loops = IndexedEventLoops(group)
    let router = Router(context: LoopRequestContext.self)
    // The loop a connection landed on, for clients that want to keep off a loop they stall.
    router.get("fast") { _, context in
        "ok event-loop-\(loops.index(of: context.eventLoop))\n"
    }
    router.get("block") { request, context in
        let (ms, target) = (try milliseconds(request), try loops.loop(for: request, context: context))
        try await target.submit { blockTheEventLoop(milliseconds: ms) }.get()
        return "blocked event-loop-\(loops.index(of: target)) for \(ms) ms\n"
    }
    // A stall in two phases on the loop: CPU in phase A, then a sleep in phase B. The stall's own
    // samples start a threshold late; the flight recorder's `before` shows phase A from its start.
    router.get("phases") { request, context in
        let (ms, target) = (try milliseconds(request), try loops.loop(for: request, context: context))
        try await target.submit {
            computeInPhaseA(milliseconds: ms)
            blockInPhaseB(milliseconds: ms)
        }.get()
        return "computed then blocked on event-loop-\(loops.index(of: target)) for \(ms) ms each\n"
    }
    router.get("sleep") { request, context in
        let (ms, target) = (try milliseconds(request), try loops.loop(for: request, context: context))
        try await target.submit { sleepOnTheEventLoop(milliseconds: ms) }.get()
        return "slept on event-loop-\(loops.index(of: target)) for \(ms) ms\n"
    }
    // A plain async handler that blocks: no event loop involved, it holds the pool thread it runs on.
    router.get("handler-sleep") { request, _ in
        let ms = try milliseconds(request)
        sleepInTheHandler(milliseconds: ms)
        return "slept in the handler for \(ms) ms\n"
    }
    // CPU work in the handler, on its pool thread: below the threshold it is never a stall, only a
    // whole-process profile sees it.
    router.get("work") { request, _ in
        let ms = try milliseconds(request)
        return "worked \(ms) ms (\(computeTheWorkRoute(milliseconds: ms) % 10))\n"
    }
    router.get("starve") { request, _ in
        let ms = try milliseconds(request)
        await starveTheCooperativePool(milliseconds: ms)
        return "starved the cooperative pool for \(ms) ms\n"
    }
    // Memory the service keeps, as a cache that grows would: Probe's memory gauges and warnings see it.
    router.get("allocate") { request, _ in
        guard let mib = request.uri.queryParameters.get("mib", as: Int.self), (1...4096).contains(mib) else {
            throw HTTPError(.badRequest, message: "mib must be 1…4096\n")
        }
        return "keeping \(KeptMemory.shared.keep(mebibytes: mib)) MiB\n"
    }
    router.get("release") { _, _ in
        KeptMemory.shared.release()
        return "released\n"
    }
    router.get("metrics") { _, _ in
        registry.emitToString()
    }
    return router
}

/// Blocks of memory the service keeps until /release, each touched so that it is resident.
final class KeptMemory: Sendable {
    static let shared = KeptMemory()
    private let blocks = Mutex<[[UInt8]]>([])

    /// Keeps `mebibytes` more; returns how many MiB are kept now.
    func keep(mebibytes: Int) -> Int {
        blocks.withLock { blocks in
            for _ in 0..<mebibytes { blocks.append([UInt8](repeating: 1, count: 1 << 20)) }
            return blocks.count
        }
    }

    func release() { blocks.withLock { $0 = [] } }
}
