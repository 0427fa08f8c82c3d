// The values the inout benchmarks pass around, each counting what happens to it.

/// Number of writes each callee makes through its inout parameter.
let inoutWritesPerCall = 10
/// Elements of the large arrays (200k `Int`s, 1.6 MB).
let largeArrayCount = 200_000

/// A stored property with a didSet that does not read oldValue, so (SE-0268) it is modified in place.
final class ObservedCounter {
    private(set) var didSetFirings = 0
    private(set) var calls = 0
    var value = 0 {
        didSet { didSetFirings += 1 }
    }

    func callMade() { calls += 1 }
}

/// A stored property whose didSet reads oldValue, so an inout access is get, modify a copy, set.
final class OldValueObservedCounter {
    private(set) var didSetFirings = 0
    private(set) var lastOldValue = 0
    var value = 0 {
        didSet {
            didSetFirings += 1
            lastOldValue = oldValue
        }
    }
}

/// A computed property over a stored one, counting getter and setter calls.
final class ComputedCounter {
    private(set) var getterCalls = 0
    private(set) var setterCalls = 0
    var storage = 0
    var value: Int {
        get {
            getterCalls += 1
            return storage
        }
        set {
            setterCalls += 1
            storage = newValue
        }
    }
}

/// A plain stored property: the optimizer may pass its address directly.
final class StoredCounter {
    var value = 0
}

/// Writes `times` times through `value`, and returns what `readOriginal` saw after each write.
@inline(never)
func writeRepeatedly(_ value: inout Int, times: Int, readOriginal: () -> Int = { 0 }) -> [Int] {
    var seen: [Int] = []
    seen.reserveCapacity(times)
    for _ in 0..<times {
        value &+= 1
        seen.append(readOriginal())
    }
    return seen
}

/// Writes `times` times through `value` without reading anything else (the timed form).
@inline(never)
func writeRepeatedly(_ value: inout Int, times: Int) {
    for _ in 0..<times { value &+= 1 }
}

/// A large array behind a property whose didSet reads oldValue. Whether didSet mentions oldValue
/// is decided from the source, which is why there are two classes and not one with a flag.
final class ArrayObservedWithOldValue {
    private(set) var oldValueCounts = 0
    var elements = Array(0..<largeArrayCount) {
        didSet { oldValueCounts &+= oldValue.count }
    }

    /// `bumpInout(&elements, …)`, made here: from another module the property is reached through
    /// its get/set accessors, which copy even when didSet ignores oldValue.
    func bumpThroughInout(at index: Int) { bumpInout(&elements, at: index) }
}

/// A large array behind a property whose didSet ignores oldValue (SE-0268: modified in place).
final class ArrayObservedWithoutOldValue {
    private(set) var didSetFirings = 0
    var elements = Array(0..<largeArrayCount) {
        didSet { didSetFirings += 1 }
    }

    /// See `ArrayObservedWithOldValue.bumpThroughInout(at:)`.
    func bumpThroughInout(at index: Int) { bumpInout(&elements, at: index) }
}

/// A class that holds a large array, for mutating it through a reference.
final class ArrayBox {
    var elements = Array(0..<largeArrayCount)
}

/// Counts how often a mutation moved an array to a new buffer (a copy-on-write copy).
struct CopyCounter {
    private(set) var calls = 0
    private(set) var copies = 0

    static func address(_ array: [Int]) -> UnsafeRawPointer? {
        array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// Records one call that found the array at `before` and left it at `after`. The old buffer is
    /// still alive while a copy is made, so a copy always has a different address.
    mutating func record(before: UnsafeRawPointer?, after: UnsafeRawPointer?) {
        calls += 1
        if before != after { copies += 1 }
    }

    var counters: [String: Double] {
        let perCall = calls > 0 ? Double(copies) / Double(calls) : 0
        return [
            "calls": Double(calls), "copiesPerCall": perCall,
            "bytesCopiedPerCall": perCall * Double(largeArrayCount * MemoryLayout<Int>.stride),
        ]
    }
}

@inline(never)
func bumpInout(_ elements: inout [Int], at index: Int) {
    elements[index] &+= 1
}

@inline(never)
func bumpReturningNew(_ elements: [Int], at index: Int) -> [Int] {
    var copy = elements
    copy[index] &+= 1
    return copy
}

@inline(never)
func bumpConsuming(_ elements: consuming [Int], at index: Int) -> [Int] {
    elements[index] &+= 1
    return elements
}
