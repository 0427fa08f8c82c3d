import PerfReport
import Testing

@testable import DispatchBench

/// The inout claims as language semantics: counts, never times.
@Suite struct InoutSemanticsTests {
    @Test func didSetFiresOnceOnReturnHoweverManyWrites() {
        let subject = ObservedCounter()
        writeRepeatedly(&subject.value, times: 7)
        #expect(subject.didSetFirings == 1)
        #expect(subject.value == 7)
    }

    @Test func readsInsideTheCalleeSeeTheOldValue() {
        let subject = OldValueObservedCounter()
        subject.value = 5
        let seen = writeRepeatedly(&subject.value, times: 4) { subject.value }
        #expect(seen == [5, 5, 5, 5])
        #expect(subject.value == 9)
        #expect(subject.didSetFirings == 2)  // the plain assignment above, then once for the call
        #expect(subject.lastOldValue == 5)

        let computed = ComputedCounter()
        let seenThroughStorage = writeRepeatedly(&computed.value, times: 3) { computed.storage }
        #expect(seenThroughStorage == [0, 0, 0])
        #expect(computed.storage == 3)
    }

    @Test func computedPropertyGetterAndSetterRunOnceEach() {
        let subject = ComputedCounter()
        writeRepeatedly(&subject.value, times: 10)
        #expect(subject.getterCalls == 1)
        #expect(subject.setterCalls == 1)
        #expect(subject.storage == 10)
    }

    @Test func byAddressAndCopyInCopyOutGiveTheSameResult() {
        let stored = StoredCounter()
        let computed = ComputedCounter()
        writeRepeatedly(&stored.value, times: 6)
        writeRepeatedly(&computed.value, times: 6)
        #expect(stored.value == computed.storage)
    }

    private func copied(_ mutate: (inout [Int]) -> Void, on array: inout [Int]) -> Bool {
        let before = CopyCounter.address(array)
        mutate(&array)
        return before != CopyCounter.address(array)
    }

    @Test func didSetReadingOldValueCopiesTheArray() {
        let withOld = ArrayObservedWithOldValue()
        var before = CopyCounter.address(withOld.elements)
        withOld.bumpThroughInout(at: 3)
        #expect(before != CopyCounter.address(withOld.elements))
        #expect(withOld.elements[3] == 4)

        let withoutOld = ArrayObservedWithoutOldValue()
        before = CopyCounter.address(withoutOld.elements)
        withoutOld.bumpThroughInout(at: 3)
        #expect(before == CopyCounter.address(withoutOld.elements))
        #expect(withoutOld.elements[3] == 4)
    }

    @Test func copyOnWriteCopiesOnlySharedBuffers() {
        var unique = Array(0..<1000)
        #expect(!copied({ bumpInout(&$0, at: 1) }, on: &unique))

        let alias = unique
        #expect(copied({ bumpInout(&$0, at: 1) }, on: &unique))
        #expect(alias[1] == 2 && unique[1] == 3)

        var held = Array(0..<1000)
        let before = CopyCounter.address(held)
        held = bumpReturningNew(held, at: 0)
        #expect(before != CopyCounter.address(held))

        var consumed = Array(0..<1000)
        let consumedBefore = CopyCounter.address(consumed)
        consumed = bumpConsuming(consume consumed, at: 0)
        #expect(consumedBefore == CopyCounter.address(consumed))

        let box = ArrayBox()
        let boxBefore = CopyCounter.address(box.elements)
        box.elements[0] &+= 1
        #expect(boxBefore == CopyCounter.address(box.elements))
    }

    /// The inout benchmarks run, count what the tests above assert, and get claims.
    @Test func suiteCountsAndClaims() throws {
        let results = try LocalDriver.run(dispatchBenchSuite, iterations: 20, samples: 2) { $0.group == "inout" }
        #expect(results.count == inoutCases.count)
        func counter(_ name: String, _ key: String) -> Double? {
            results.first { $0.name == name }?.counters[key]
        }
        #expect(counter("observer-fires-once", "didSetPerCall") == 1)
        #expect(counter("reads-see-old-value", "readsSeeingOldValue") == Double(inoutWritesPerCall))
        #expect(counter("computed-get-set-once", "getterPerCall") == 1)
        #expect(counter("computed-get-set-once", "setterPerCall") == 1)
        #expect(counter("didset-oldvalue-200k", "copiesPerCall") == 1)
        #expect(counter("didset-no-oldvalue-200k", "copiesPerCall") == 0)
        #expect(counter("cow-inout", "copiesPerCall") == 0)
        #expect(counter("cow-inout-shared", "copiesPerCall") == 1)
        #expect(counter("cow-return-new", "copiesPerCall") == 1)
        #expect(counter("cow-consume", "copiesPerCall") == 0)
        #expect(counter("cow-class-box", "copiesPerCall") == 0)
        for result in results {
            #expect(result.claim != nil, "\(result.id) has no claim")
        }
        for name in ["observer-fires-once", "reads-see-old-value", "computed-get-set-once", "stored-by-address", "cow-inout"] {
            #expect(results.first { $0.name == name }?.claim?.verdict == .held, "\(name)")
        }
    }
}
