import Harness
import PerfReport

private func inoutCase<Subject>(
    _ name: String, _ statement: String, make: @escaping @Sendable () -> Subject,
    body: @escaping (Subject, Int) -> Void, counters: @escaping (Subject) -> [String: Double],
    judge: @escaping ClaimedBenchmark.Judge
) -> ClaimedBenchmark {
    ClaimedBenchmark(
        "DispatchBench/inout/\(name)", statement, make: { _ in make() }, body: body, counters: counters, judge: judge)
}

/// "held" when `counter` is exactly `expected` (these are counts, not times: no noise to allow for).
private func exactly(_ counter: String, _ expected: Double, _ what: String) -> ClaimedBenchmark.Judge {
    { result, _ in
        guard let observed = result.counters[counter] else { return (.inconclusive, "counter \(counter) missing") }
        let evidence =
            "\(what): \(formatCount(observed)) (expected \(formatCount(expected))); median \(Describe.median(result))"
        return (observed == expected ? .held : .didNotHold, evidence)
    }
}

func formatCount(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3f", value)
}

/// Copies per call must be `expectedCopies`; with `slowerThan`, the case must also be significantly
/// slower than that case, by at least `factor`.
private func copies(
    _ expectedCopies: Double, slowerThan baselineName: String? = nil, factor: Double = 1
) -> ClaimedBenchmark.Judge {
    { result, all in
        guard let perCall = result.counters["copiesPerCall"] else {
            return (.inconclusive, "counter copiesPerCall missing")
        }
        let copiesHeld = abs(perCall - expectedCopies) < 0.01
        var evidence =
            "\(String(format: "%.2f", perCall)) buffer copies per call (\(formatCount(result.counters["bytesCopiedPerCall"] ?? 0)) bytes), expected \(formatCount(expectedCopies))"
        if let allocations = result.allocationsPerOperation {
            evidence += String(format: "; %.2f allocations per call", allocations)
        }
        guard let baselineName else {
            return (copiesHeld ? .held : .didNotHold, evidence + "; median \(Describe.median(result))")
        }
        guard let baseline = all.first(where: { $0.group == "inout" && $0.name == baselineName }) else {
            return (
                copiesHeld ? .inconclusive : .didNotHold, evidence + "; \(baselineName) not run, no time comparison"
            )
        }
        let difference = TimingDifference(result, comparedTo: baseline)
        let ratio = difference.ratio ?? 0
        evidence += "; " + difference.sentence(result, vs: baselineName, baseline)
        if factor > 1 { evidence += " (claim needs ≥ \(formatCount(factor))×)" }
        if !copiesHeld || difference.direction == .lower { return (.didNotHold, evidence) }
        if difference.direction == .higher && ratio >= factor { return (.held, evidence) }
        return (difference.direction == .higher ? .didNotHold : .inconclusive, evidence)
    }
}

let inoutCases: [ClaimedBenchmark] = [
    inoutCase(
        "observer-fires-once",
        "An inout argument is written back once, on return: didSet fires exactly once per call however many writes the callee makes (here \(inoutWritesPerCall)).",
        make: { ObservedCounter() },
        body: { subject, n in
            for _ in 0..<n {
                writeRepeatedly(&subject.value, times: inoutWritesPerCall)
                subject.callMade()
            }
        },
        counters: {
            [
                "didSetPerCall": Double($0.didSetFirings) / Double(max($0.calls, 1)),
                "writesPerCall": Double(inoutWritesPerCall),
            ]
        },
        judge: exactly("didSetPerCall", 1, "didSet firings per call")),
    inoutCase(
        "reads-see-old-value",
        "Inside the callee, reads of the original variable still see the old value (copy-in copy-out); shown on a property whose didSet reads oldValue. (With a didSet that ignores oldValue the access is in place, and such a read is an exclusivity violation that traps.)",
        make: { OldValueObservedCounter() },
        body: { subject, n in
            for _ in 0..<n {
                let before = subject.value
                let seen = writeRepeatedly(&subject.value, times: inoutWritesPerCall) { subject.value }
                blackHole(seen.allSatisfy { $0 == before })
            }
        },
        counters: { subject in
            // Measured once more here, outside the timed loop, so the counters are exact.
            let before = subject.value
            let seen = writeRepeatedly(&subject.value, times: inoutWritesPerCall) { subject.value }
            return [
                "readsInsideCallee": Double(seen.count),
                "readsSeeingOldValue": Double(seen.filter { $0 == before }.count),
                "valueAfterCall": Double(subject.value - before),
            ]
        },
        judge: { result, _ in
            let reads = result.counters["readsInsideCallee"] ?? 0
            let old = result.counters["readsSeeingOldValue"] ?? -1
            let after = result.counters["valueAfterCall"] ?? 0
            let held = reads > 0 && old == reads && after == Double(inoutWritesPerCall)
            return (
                held ? .held : .didNotHold,
                "\(formatCount(old)) of \(formatCount(reads)) reads inside the callee saw the old value; after return the value had changed by \(formatCount(after)); median \(Describe.median(result))"
            )
        }),
    inoutCase(
        "computed-get-set-once",
        "An inout computed property is read once (getter) and written once (setter) per call, however many writes the callee makes.",
        make: { ComputedCounter() },
        body: { subject, n in
            for _ in 0..<n { writeRepeatedly(&subject.value, times: inoutWritesPerCall) }
        },
        counters: { subject in
            let calls = Double(max(subject.setterCalls, 1))
            return [
                "getterPerCall": Double(subject.getterCalls) / calls,
                "setterPerCall": Double(subject.setterCalls) / calls,
            ]
        },
        judge: { result, _ in
            let getter = result.counters["getterPerCall"] ?? 0
            let setter = result.counters["setterPerCall"] ?? 0
            return (
                getter == 1 && setter == 1 ? .held : .didNotHold,
                "getter \(formatCount(getter)) and setter \(formatCount(setter)) times per call with \(inoutWritesPerCall) writes; median \(Describe.median(result))"
            )
        }),
    inoutCase(
        "stored-by-address",
        "For a stored property with no observers the optimizer may pass its address instead of a copy; either way the result is the same as copy-in copy-out (code must not rely on either).",
        make: { (StoredCounter(), ComputedCounter()) },
        body: { subjects, n in
            for _ in 0..<n { writeRepeatedly(&subjects.0.value, times: inoutWritesPerCall) }
        },
        counters: { subjects in
            // The same writes through a computed (copy-in copy-out) property must give the same value.
            subjects.1.storage = subjects.0.value
            let stored = subjects.0.value
            writeRepeatedly(&subjects.0.value, times: inoutWritesPerCall)
            writeRepeatedly(&subjects.1.value, times: inoutWritesPerCall)
            return [
                "storedResult": Double(subjects.0.value - stored),
                "copyInCopyOutResult": Double(subjects.1.storage - stored),
            ]
        },
        judge: { result, all in
            let stored = result.counters["storedResult"] ?? -1
            let copied = result.counters["copyInCopyOutResult"] ?? -2
            var evidence =
                "by-address result +\(formatCount(stored)), copy-in copy-out result +\(formatCount(copied)); median \(Describe.median(result))"
            if let computed = all.first(where: { $0.id == "DispatchBench/inout/computed-get-set-once" }) {
                evidence +=
                    "; "
                    + TimingDifference(result, comparedTo: computed).sentence(result, vs: "computed property", computed)
            }
            return (stored == copied && stored == Double(inoutWritesPerCall) ? .held : .didNotHold, evidence)
        }),
    inoutCase(
        "didset-oldvalue-200k",
        "A didSet that reads oldValue forces a full copy of a 200k-element array on every inout call: orders of magnitude (≥ 100×) slower than a didSet that ignores oldValue.",
        make: { (ArrayObservedWithOldValue(), CopyCounterBox()) },
        body: { subjects, n in
            let (array, counter) = subjects
            for i in 0..<n {
                let before = CopyCounter.address(array.elements)
                array.bumpThroughInout(at: i % largeArrayCount)
                counter.value.record(before: before, after: CopyCounter.address(array.elements))
            }
        },
        counters: { $0.1.value.counters },
        judge: copies(1, slowerThan: "didset-no-oldvalue-200k", factor: 100)),
    inoutCase(
        "didset-no-oldvalue-200k",
        "A didSet that ignores oldValue lets an inout call modify a 200k-element array in place: no copy.",
        make: { (ArrayObservedWithoutOldValue(), CopyCounterBox()) },
        body: { subjects, n in
            let (array, counter) = subjects
            for i in 0..<n {
                let before = CopyCounter.address(array.elements)
                array.bumpThroughInout(at: i % largeArrayCount)
                counter.value.record(before: before, after: CopyCounter.address(array.elements))
            }
        },
        counters: { $0.1.value.counters },
        judge: copies(0)),
    inoutCase(
        "cow-inout",
        "Passing a uniquely referenced 200k-element array inout mutates it in place: no copy.",
        make: { (ArrayBox(), CopyCounterBox()) },
        body: { subjects, n in
            var elements = subjects.0.elements
            subjects.0.elements = []
            for i in 0..<n {
                let before = CopyCounter.address(elements)
                bumpInout(&elements, at: i % largeArrayCount)
                subjects.1.value.record(before: before, after: CopyCounter.address(elements))
            }
            subjects.0.elements = elements
        },
        counters: { $0.1.value.counters },
        judge: copies(0)),
    inoutCase(
        "cow-inout-shared",
        "Copy-on-write: when another reference to the buffer exists, the inout mutation copies the whole 200k-element array (every call here), and is slower than the unique case.",
        make: { (ArrayBox(), CopyCounterBox()) },
        body: { subjects, n in
            var elements = subjects.0.elements
            for i in 0..<n {
                subjects.0.elements = elements  // a second reference: the buffer is no longer unique
                let before = CopyCounter.address(elements)
                bumpInout(&elements, at: i % largeArrayCount)
                subjects.1.value.record(before: before, after: CopyCounter.address(elements))
            }
        },
        counters: { $0.1.value.counters },
        judge: copies(1, slowerThan: "cow-inout")),
    inoutCase(
        "cow-return-new",
        "Returning a new array (`x = f(x)`) while the caller still holds the old one copies the whole 200k-element buffer on every call, and is slower than inout.",
        make: { (ArrayBox(), CopyCounterBox()) },
        body: { subjects, n in
            var elements = subjects.0.elements
            subjects.0.elements = []
            for i in 0..<n {
                let before = CopyCounter.address(elements)
                elements = bumpReturningNew(elements, at: i % largeArrayCount)
                subjects.1.value.record(before: before, after: CopyCounter.address(elements))
            }
            subjects.0.elements = elements
        },
        counters: { $0.1.value.counters },
        judge: copies(1, slowerThan: "cow-inout")),
    inoutCase(
        "cow-consume",
        "Handing the array over with `consume` to a `consuming` parameter and returning it avoids the copy: no copy per call.",
        make: { (ArrayBox(), CopyCounterBox()) },
        body: { subjects, n in
            var elements = subjects.0.elements
            subjects.0.elements = []
            for i in 0..<n {
                let before = CopyCounter.address(elements)
                elements = bumpConsuming(consume elements, at: i % largeArrayCount)
                subjects.1.value.record(before: before, after: CopyCounter.address(elements))
            }
            subjects.0.elements = elements
        },
        counters: { $0.1.value.counters },
        judge: copies(0)),
    inoutCase(
        "cow-class-box",
        "Mutating a 200k-element array through a class box (the box holds the only reference) modifies it in place: no copy.",
        make: { (ArrayBox(), CopyCounterBox()) },
        body: { subjects, n in
            let box = subjects.0
            for i in 0..<n {
                let before = CopyCounter.address(box.elements)
                box.elements[i % largeArrayCount] &+= 1
                subjects.1.value.record(before: before, after: CopyCounter.address(box.elements))
            }
        },
        counters: { $0.1.value.counters },
        judge: copies(0)),
]

/// A `CopyCounter` shared by reference between a benchmark body and its counters.
final class CopyCounterBox {
    var value = CopyCounter()
}
