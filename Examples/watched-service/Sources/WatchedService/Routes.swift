import Hummingbird
import NIOCore
import NIOPosix
import ProbeHeap
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

func makeRouter(
    group: any EventLoopGroup, registry: PrometheusCollectorRegistry, heapSamplerSwitch: Bool = false
) -> Router<LoopRequestContext> {
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
    // What a JSON API does per request: n small objects with strings and arrays built, rendered and
    // dropped (~60 allocations each). heap_cost.py measures the heap sampler's cost on it.
    router.get("orders") { request, _ in
        guard let count = request.uri.queryParameters.get("n", as: Int.self), (1...10_000).contains(count) else {
            throw HTTPError(.badRequest, message: "n must be 1…10000\n")
        }
        return renderOrders(count: count)
    }
    // With --heap-profile only: the sampler stopped (on=0) and started again (on=1) in this process,
    // so that heap_cost.py compares the two in one process, not across two with their own layouts.
    if heapSamplerSwitch {
        router.get("heap-sampler") { request, _ in
            switch request.uri.queryParameters.get("on") {
            case "0": HeapProfiler.stop()
            case "1": try HeapProfiler.start()
            default: throw HTTPError(.badRequest, message: "on must be 0 or 1\n")
            }
            return "heap sampler \(HeapProfiler.meanInterval.map { "on, one sample every \($0) bytes" } ?? "off")\n"
        }
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

final class Order {
    let id: Int
    let customer: String
    let lines: [(sku: String, quantity: Int)]

    init(id: Int) {
        self.id = id
        customer = "customer-\(id % 97)"
        lines = (0..<(1 + id % 5)).map { (sku: "sku-\(id)-\($0)", quantity: $0 + 1) }
    }
}

/// `count` orders built and rendered as JSON text, each allocated anew.
@inline(never)
func renderOrders(count: Int) -> String {
    let orders = (0..<count).map(Order.init)
    let rendered = orders.map { order in
        let lines = order.lines.map { "{\"sku\":\"\($0.sku)\",\"quantity\":\($0.quantity)}" }
        return "{\"id\":\(order.id),\"customer\":\"\(order.customer)\",\"lines\":[\(lines.joined(separator: ","))]}"
    }
    return "[" + rendered.joined(separator: ",") + "]\n"
}
