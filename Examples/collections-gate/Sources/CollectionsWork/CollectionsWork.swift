import DequeModule
import HeapModule
import OrderedCollections

/// Pseudo-random integers from a fixed seed (SplitMix64), so every process and every build works on
/// the same input; only the hash seed of a hashed collection differs between processes.
public func fixedRandomIntegers(count: Int, seed: UInt64 = 0x5EED) -> [Int] {
    var state = seed
    return (0..<count).map { _ in
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
    }
}

/// A work queue's churn: push at the back, pop at the front, `count` times, on a ring buffer that
/// wraps, then the weight of the last 64 jobs. Hash-independent.
public func dequeChurn(_ values: [Int]) -> Int {
    var deque = Deque<Int>(minimumCapacity: 64)
    var sum = 0
    for value in values {
        deque.append(value)
        if deque.count > 48 { sum &+= deque.removeFirst() }
    }
    while let value = deque.popFirst() { sum &+= value }
    return sum &+ churnWeight(values.suffix(64).map { Job(cost: $0) })
}

/// Something a queue can weigh, for `churnWeight`.
public protocol Weighted {
    func weight() -> Int
}

/// A queued job, weighed by its cost's low bits.
public struct Job: Weighted {
    public var cost: Int
    public func weight() -> Int { cost & 0xFF }
}

/// Adds up the jobs' weights: a generic function the optimizer specializes for `Job`. With
/// `-Xswiftc -DCHURN_EXISTENTIAL` it takes `[any Weighted]` instead, and every `weight()` is a call
/// through a witness table: the "why" a profile's compiled-code line must name
/// (scripts/where-it-grew.sh).
#if CHURN_EXISTENTIAL
    @inline(never)
    func churnWeight(_ jobs: [any Weighted]) -> Int {
        var total = 0
        for _ in 0..<8 {
            for job in jobs { total &+= job.weight() }
        }
        return total
    }
#else
    @inline(never)
    func churnWeight<Item: Weighted>(_ jobs: [Item]) -> Int {
        var total = 0
        for _ in 0..<8 {
            for job in jobs { total &+= job.weight() }
        }
        return total
    }
#endif

/// Deduplicates `values` in order and looks every value up again: a hash table whose layout, and so
/// whose speed, depends on the process's hash seed (Swift seeds hashing per process unless
/// SWIFT_DETERMINISTIC_HASHING is set).
public func orderedSetDeduplicate(_ values: [Int]) -> Int {
    var set = OrderedSet<Int>()
    set.reserveCapacity(values.count)
    for value in values { set.append(value & 0xFFFF) }
    var found = 0
    for value in values where set.contains(value & 0xFFFF) { found &+= 1 }
    return set.count &+ found
}

/// The share of extra elements a deliberately regressed build pushes through the heap: 0 normally,
/// 5% with `-Xswiftc -DHEAP_REGRESSION_5`, 10% with `-Xswiftc -DHEAP_REGRESSION_10`.
public let heapRegressionShare: Double = {
    #if HEAP_REGRESSION_10
        return 0.10
    #elseif HEAP_REGRESSION_5
        return 0.05
    #else
        return 0
    #endif
}()

/// A scheduler's priority queue: insert every value into a min-heap, then drain it in order. A
/// regressed build processes `heapRegressionShare` more elements (the first values again), so its
/// work grows by about that share.
public func heapDrain(_ values: [Int]) -> Int {
    let extra = Int((Double(values.count) * heapRegressionShare).rounded())
    var heap = Heap<Int>()
    for value in values { heap.insert(value) }
    for value in values.prefix(extra) { heap.insert(value) }
    var checksum = 0
    while let smallest = heap.popMin() { checksum = drainChecksumStep(checksum, smallest) }
    return checksum
}

/// One step of the drain's checksum, a function of its own: `-Xswiftc -DHEAP_EXTRA_WORK` adds work
/// inside it and nowhere else, so that an instruction profile's differential must name it
/// (scripts/where-it-grew.sh); `-DHEAP_EXTRA_TIME` adds 8 times as much, for a time profile's (8
/// rounds run beside the heap's loads and may not move the time).
@inline(never)
public func drainChecksumStep(_ checksum: Int, _ value: Int) -> Int {
    #if HEAP_EXTRA_WORK || HEAP_EXTRA_TIME
        #if HEAP_EXTRA_TIME
            let rounds = 64
        #else
            let rounds = 8
        #endif
        var mixed = checksum
        for _ in 0..<rounds { mixed = (mixed ^ (mixed >> 7)) &* 0x9E37_79B9 }
        return mixed &* 31 &+ value
    #else
        return checksum &* 31 &+ value
    #endif
}

/// The share of extra lookups a deliberately regressed build makes: 0 normally, 5% with
/// `-Xswiftc -DLOOKUP_REGRESSION_5`, 10% with `-Xswiftc -DLOOKUP_REGRESSION_10`
/// (scripts/trials.py --injected lookup).
public let lookupRegressionShare: Double = {
    #if LOOKUP_REGRESSION_10
        return 0.10
    #elseif LOOKUP_REGRESSION_5
        return 0.05
    #else
        return 0
    #endif
}()

/// A route a service looks up: hashed by its id alone (unique), compared field by field as Swift
/// synthesizes it — its tenant and path segments first, the same for every route of the table.
public struct Route: Hashable {
    public var tenant: Int
    public var segments: [Int]
    public var id: Int
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A routing table three quarters full (768 routes in room for 1,024, as full as a Swift table gets
/// before it grows), and 1,536 routes it does not hold, each with a path of its own (equal paths in
/// separate arrays: comparing them reads both).
public struct RouteTable {
    let routes: Set<Route>
    let lookups: [Route]
}

public func makeRouteTable(_ values: [Int]) -> RouteTable {
    let ids = values.prefix(2_304).map { $0 & 0xFFFF_FFFF }
    let route = { (id: Int) in Route(tenant: 7, segments: Array(1...8), id: id) }
    var routes = Set<Route>(minimumCapacity: 768)
    for id in ids.prefix(768) { routes.insert(route(id)) }
    return RouteTable(routes: routes, lookups: ids.dropFirst(768).map(route))
}

/// Looks up routes the table does not hold. A miss costs its probes — a comparison of the path at
/// each — and how many the table's clusters make follows the process's hash seed (Swift seeds hashing
/// per process unless SWIFT_DETERMINISTIC_HASHING is set): the processes of this benchmark lie apart
/// by construction, as a layout-sensitive benchmark's do. A regressed build looks up
/// `lookupRegressionShare` more (the first routes again).
public func routeLookups(_ table: RouteTable) -> Int {
    let extra = Int((Double(table.lookups.count) * lookupRegressionShare).rounded())
    var found = 0
    for route in table.lookups where table.routes.contains(route) { found &+= 1 }
    for route in table.lookups.prefix(extra) where table.routes.contains(route) { found &+= 1 }
    return found
}

/// The share of extra elements a deliberately regressed build sorts: 0 normally, 5% with
/// `-Xswiftc -DSORT_REGRESSION_5`, 10% with `-Xswiftc -DSORT_REGRESSION_10`. The sort's processes lie
/// further apart than the heap's (its speed depends on the process's layout), so a change injected
/// here tests what the wall-time gate decides on such a benchmark (scripts/trials.py --injected sort).
public let sortRegressionShare: Double = {
    #if SORT_REGRESSION_10
        return 0.10
    #elseif SORT_REGRESSION_5
        return 0.05
    #else
        return 0
    #endif
}()

/// The standard library's sort of a copy of `values`, then a checksum of it. Hash-independent. A
/// regressed build sorts `sortRegressionShare` more elements (the first values again).
public func sortedCopy(_ values: [Int]) -> Int {
    let extra = Int((Double(values.count) * sortRegressionShare).rounded())
    let sorted = extra == 0 ? values.sorted() : (values + values.prefix(extra)).sorted()
    return sorted[sorted.count / 2] &+ sortedChecksum(sorted, RunningTotal())
}

/// A running total, and the log its progress goes to.
public final class RunningTotal {
    public var value = 0
    public var log = ProgressLog()
    public init() {}
}

/// Where progress is reported.
public final class ProgressLog {
    public var entries = 0
}

/// Adds the sorted values up and stores the total once. With `-Xswiftc -DSORT_RETAIN_LOG` it
/// also reports progress to the total's log on every element, holding the log across a call the
/// optimizer cannot see into: a retain and a release in the loop, the "why" a profile's
/// compiled-code line must name (scripts/where-it-grew.sh).
@inline(never)
func sortedChecksum(_ sorted: [Int], _ total: RunningTotal) -> Int {
    var local = 0
    for value in sorted {
        #if SORT_RETAIN_LOG
            let log = total.log
            reportProgress(log)
            local &+= value &+ log.entries
        #else
            local &+= value
        #endif
    }
    total.value = local
    return total.value
}

/// A progress hook the optimizer must treat as opaque.
@inline(never) @_optimize(none)
func reportProgress(_ log: ProgressLog) {}
