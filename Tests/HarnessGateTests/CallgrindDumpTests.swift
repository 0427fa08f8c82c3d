import Testing

@testable import Harness
@testable import HarnessBenchmarks

@Suite struct CallgrindDumpTests {
    /// A real dump part written by valgrind 3.19 after CALLGRIND_DUMP_STATS_AT("bench/a#1").
    static let dump = """
        # callgrind format
        version: 1
        creator: callgrind-3.19.0
        pid: 3549
        cmd:  ./t
        part: 1


        desc: I1 cache:
        desc: D1 cache:
        desc: LL cache:

        desc: Timerange: Basic block 0 - 28764
        desc: Trigger: Client Request: bench/a#1

        positions: line
        events: Ir
        summary: 6020


        ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
        fl=(1) ???
        fn=(0) 0x000000000001ab70
        calls=0 0
        0 6020

        fn=(538)
        0 6005

        totals: 6020
        """

    @Test func readsInstructionsAndTrigger() throws {
        let dump = try CallgrindDump(parsing: Self.dump)
        #expect(dump.instructions == 6020)
        #expect(dump.trigger == "bench/a#1")
        #expect(dump.totals == ["Ir": 6020])
    }

    @Test func readsSeveralEventsAndFillsOmittedTrailingZeros() throws {
        let text = "events: Ir Bc Bcm\ntotals: 1000 200\n"
        let dump = try CallgrindDump(parsing: text)
        #expect(dump.totals == ["Ir": 1000, "Bc": 200, "Bcm": 0])
        #expect(dump.instructions == 1000)
    }

    @Test func fallsBackToSummaryWithoutTotals() throws {
        let dump = try CallgrindDump(parsing: "events: Ir\nsummary: 42\n")
        #expect(dump.instructions == 42)
        #expect(dump.trigger == nil)
    }

    @Test func programTerminationTriggerIsKeptAsIs() throws {
        let dump = try CallgrindDump(parsing: "desc: Trigger: Program termination\nevents: Ir\ntotals: 0\n")
        #expect(dump.trigger == "Program termination")
    }

    @Test func rejectsMalformedDumps() {
        #expect(throws: CallgrindDump.ParseError(kind: .missingLine, description: "no 'events:' line")) {
            try CallgrindDump(parsing: "totals: 5\n")
        }
        #expect(throws: CallgrindDump.ParseError(kind: .missingLine, description: "no 'totals:' or 'summary:' line")) {
            try CallgrindDump(parsing: "events: Ir\n")
        }
        #expect(throws: CallgrindDump.ParseError(kind: .badTotals, description: "total 'x12' of Ir is not a number")) {
            try CallgrindDump(parsing: "events: Ir\ntotals: x12\n")
        }
        #expect(throws: CallgrindDump.ParseError(kind: .badTotals, description: "2 totals for 1 events")) {
            try CallgrindDump(parsing: "events: Ir\ntotals: 1 2\n")
        }
    }

    @Test func sampleIterationsArePowersOfTwoNearTheTarget() {
        let target = CallgrindInstructionCounter.targetInstructionsPerSample
        let iterations = BenchmarkRunner.instructionSampleIterations(perOperation: 1000)
        #expect(iterations == 1024)
        #expect(Double(iterations) * 1000 <= target && Double(iterations * 2) * 1000 > target)
        // A body 1% dearer keeps the same count, so the per-operation counts stay comparable.
        #expect(BenchmarkRunner.instructionSampleIterations(perOperation: 1010) == iterations)
        // A body that costs nothing measurable: as many iterations as the target allows, counting 1 each.
        #expect(BenchmarkRunner.instructionSampleIterations(perOperation: 0) == 1 << 20)
        #expect(BenchmarkRunner.instructionSampleIterations(perOperation: 1e12) == 1)
    }

    @Test func notUnderValgrindThereIsNoCounter() {
        #expect(!CallgrindInstructionCounter.runningOnValgrind)
        #expect(CallgrindInstructionCounter.fromEnvironment() == nil)
    }

    @Test func fixedWorkHasNoInjectedSlowdownInANormalBuild() {
        let work = FixedWork(bytes: 4096)
        #expect(work.extraBytes == 0)
        #expect(work.hash() == FixedWork(bytes: 4096).hash())
        #expect(work.hash() != FixedWork(bytes: 4095).hash())
    }
}
