import Testing

@testable import PerfReport

/// The words for each reason a comparator can give: what the report's `explanation`, the terminal,
/// the markdown summary and the HTML page say.
@Suite struct ComparisonWordingTests {
    typealias Reason = ComparisonReason

    static func words(reason: Reason, metric: Metric = .wallTime, threshold: Double = 5) -> String {
        ComparisonWording.explanation(reason, metric: metric, thresholdPercent: threshold)
    }

    static func words(_ finding: Reason.Finding, metric: Metric = .wallTime, threshold: Double = 5) -> String {
        words(reason: Reason(finding), metric: metric, threshold: threshold)
    }

    /// 12% slower, tested together with 39 other benchmarks.
    static func slower(_ outcome: Reason.TestedOutcome) -> Reason.Finding {
        .tested(
            ratio: 1.12, interval: ConfidenceInterval(lower: 1.08, upper: 1.16, level: 0.95), processes: nil,
            pValue: Reason.AdjustedPValue(0.0004, tests: 40), outcome: outcome)
    }

    @Test func eachTestedOutcome() {
        let figures = "12.0% slower (ratio 1.120, CI 1.080…1.160), p < 0.001 after Holm over 40 benchmarks: "
        #expect(Self.words(Self.slower(.regressed)) == figures + "regressed beyond the 5.0% threshold")
        #expect(
            Self.words(Self.slower(.intervalIncludesNoChange))
                == figures + "significant by the rank test, but the ratio's interval includes no change")
        #expect(Self.words(Self.slower(.belowThreshold)) == figures + "changed by 12.0%, below the 5.0% threshold")
        #expect(
            Self.words(Self.slower(.belowThresholdIntervalReachesBeyond))
                == figures + "changed by 12.0%, below the 5.0% threshold, but the interval reaches beyond it, "
                + "so a larger change cannot be ruled out")
        #expect(
            Self.words(Self.slower(.intervalReachesBeyondThreshold))
                == figures + "not significant, but the interval reaches beyond ±5.0%, so a change cannot be ruled out")
        #expect(
            Self.words(Self.slower(.noSignificantChange))
                == figures + "no significant change, and the interval stays within ±5.0%")
        let faster = Reason.Finding.tested(
            ratio: 0.8, interval: ConfidenceInterval(lower: 0.75, upper: 0.85, level: 0.95),
            processes: Reason.PerSide(baseline: 10, current: 3), pValue: Reason.AdjustedPValue(0.0123, tests: 1),
            outcome: .improved)
        #expect(
            Self.words(faster, metric: .cpuTime, threshold: 10)
                == "25.0% faster (ratio 0.800, CI between processes (10 vs 3) 0.750…0.850), p = 0.0123: "
                + "improved beyond the 10.0% threshold")
    }

    @Test func eachFindingWithoutATest() {
        #expect(Self.words(.onlyInBaseline) == "only in the baseline: removed")
        #expect(Self.words(.onlyInCurrentRun) == "only in the current run: added")
        #expect(Self.words(.noSamples(in: .baseline)) == "no samples in the baseline, so a change cannot be ruled out")
        #expect(
            Self.words(.noSamples(in: .current)) == "no samples in the current run, so a change cannot be ruled out")
        #expect(
            Self.words(.belowMeasurableFloor(nanoseconds: 0.001))
                == "both medians are below 0.001 ns/op: nothing measurable to compare")
        #expect(
            Self.words(.processSpreadUnknown)
                == "measured in several processes, but how far apart separate processes lie cannot be estimated "
                + "from these, so a change cannot be ruled out")
        #expect(
            Self.words(
                .ratioUndefined(baselineMedian: 0, pValue: Reason.AdjustedPValue(0.5, tests: 1)), metric: .cycles)
                == "baseline median is 0 cycles/op, too small to measure, so the ratio is undefined and a change "
                + "cannot be ruled out (p = 0.5)")
    }

    @Test func eachCountedOutcome() {
        func words(_ outcome: Reason.CountedOutcome, _ old: Double = 1000, _ new: Double = 1100) -> String {
            let ratio: Double? = old > 0 ? new / old : nil
            return Self.words(
                .counted(baseline: old, current: new, ratio: ratio, outcome: outcome), metric: .instructions,
                threshold: 2)
        }
        let exact = "; instructions per operation are deterministic, so no significance test is needed"
        let values = "1000 → 1100 instructions per operation (10.0% more instructions): "
        #expect(words(.regressed) == values + "regressed beyond the 2.0% threshold" + exact)
        #expect(words(.belowThreshold) == values + "below the 2.0% threshold" + exact)
        #expect(
            words(.improved, 1100, 1000)
                == "1100 → 1000 instructions per operation (10.0% fewer instructions): improved beyond the 2.0% "
                + "threshold" + exact)
        #expect(
            words(.identical, 1000, 1000) == "1000 → 1000 instructions per operation (unchanged): identical" + exact)
        #expect(words(.regressedFromNone, 0, 3) == "0 → 3 instructions per operation: regressed from none" + exact)
        #expect(
            words(.belowMinimumDifference(0.5), 0, 0.001)
                == "0 → 0.001 instructions per operation: a difference below 0.5 per operation is runtime residue, "
                + "not the benchmarked code" + exact)
    }

    @Test func eachSubstitutionComesFirst() {
        let busy = Reason(
            .onlyInCurrentRun,
            substitution: .busyMachine(
                onCPU: Reason.PerSide(baseline: 1, current: 0.53),
                switchesPerSecond: Reason.PerSide(baseline: 2, current: 120.4)))
        #expect(
            Self.words(reason: busy)
                == "the machine was busy (this run was on a CPU for 53% of its wall time (the baseline 100%), 120 "
                + "involuntary context switches/s (the baseline 2)), so CPU time was compared: only in the current "
                + "run: added")
        let missing = Reason(.onlyInCurrentRun, substitution: .notMeasured(.allocations))
        #expect(
            Self.words(reason: missing)
                == "allocations per operation not measured on both sides, so wall time was compared: only in the "
                + "current run: added")
        #expect(
            Self.words(reason: Reason(.onlyInCurrentRun, substitution: .notMeasured(.cpuTime)))
                .hasPrefix("CPU time not measured on both sides"))
    }

    @Test func eachReviewInTurn() {
        let found =
            "12.0% slower (ratio 1.120, CI 1.080…1.160), p < 0.001 after Holm over 40 benchmarks: "
            + "regressed beyond the 5.0% threshold"
        func words(_ reviews: [Reason.Review]) -> String {
            Self.words(reason: Reason(Self.slower(.regressed), reviews: reviews))
        }
        #expect(
            words([.busyMachineInconclusive])
                == found + "; inconclusive: the machine was busy, measure again when it is quieter")
        #expect(
            words([.beyondSharedSlowdown(otherBenchmarks: 3, medianRatio: 1.1, relativeRatio: 1.06)])
                == found + "; the other 3 benchmarks were slower too (median ratio 1.100), and this one 1.060 times "
                + "that: beyond the threshold still")
        #expect(
            words([.withinSharedSlowdown(otherBenchmarks: 3, medianRatio: 1.1, relativeRatio: 1.02)])
                == found + "; but the other 3 benchmarks were slower too (median ratio 1.100), this one 1.020 times "
                + "that, not shown beyond the threshold: the machine's speed moved between the two measurements, or a change slowed "
                + "everything, which time cannot tell apart (instruction counts, or both builds measured "
                + "interleaved, can)")
        #expect(words([.rerunMissing]) == found + "; the re-run did not measure it, so the regression stands")
        #expect(
            words([.rerunConfirmed(firstRatio: 1.2)]) == "confirmed by a re-run: " + found + " (first run +20.0 %)")
        #expect(
            words([.rerunDidNotConfirm(firstRatio: nil)])
                == "the first run's regression (?) was not confirmed by a re-run: " + found)
        let first = ComparisonReason.PerSide(baseline: 10, current: 3)
        #expect(
            words([
                .moreProcesses(firstProcesses: first, addedProcesses: 6, looks: 3, interleaved: false, decided: true)
            ])
                == "undecided after 3 processes, decided by 6 more processes (3 looks): " + found)
        #expect(
            words([.moreProcesses(firstProcesses: nil, addedProcesses: 2, looks: 1, interleaved: true, decided: false)])
                == "undecided at first, and still after 2 fresh processes of each build, alternating (1 look): " + found
        )
        #expect(
            words([.machineMoved(processes: 2, of: 3, lowest: 1.16, highest: 1.6, boundPercent: 15)])
                == found + "; inconclusive: the machine's factor lay beyond ±15% in 2 of this run's 3 processes "
                + "(×1.16–1.60) and moved within them, which divides out inexactly; measure again when the machine "
                + "is steadier, or give the baseline's build (--baseline-binary)")
        #expect(
            words([.processesLeftOut(processes: 1, of: 3, lowest: 1.61, highest: 1.61, boundPercent: 15)])
                == found + "; 1 of this run's 3 processes left out: the machine's factor lay beyond ±15% in it "
                + "(×1.61) and moved within, which divides out inexactly")
        // In order: the re-run frames what its own comparison found and reviewed.
        #expect(words([.rerunMissing, .rerunConfirmed(firstRatio: 1.2)]).hasSuffix("stands (first run +20.0 %)"))
    }

    @Test func aChangeIsWordedInTheMetricsTerms() {
        #expect(ComparisonWording.describe(ratio: 0, metric: .allocations) == "none left (was above zero)")
        #expect(ComparisonWording.describe(ratio: 0, metric: .wallTime) == "dropped to zero")
        #expect(!ComparisonWording.describe(ratio: 0, metric: .instructions).contains("inf"))
        #expect(ComparisonWording.describe(ratio: 1.5, metric: .allocations) == "50.0% more allocations")
        #expect(ComparisonWording.describe(ratio: 1.5, metric: .contextSwitches) == "50.0% more context switches")
        #expect(ComparisonWording.describe(ratio: 0.5, metric: .cycles) == "100.0% faster")
    }

    /// An entry made from a reason says it in these words, and keeps saying it as it is reviewed;
    /// one read from a schema-1 report (words only) keeps its own words and adds the review's.
    @Test func anEntrysExplanationFollowsItsReason() {
        var entry = ComparisonEntry(
            id: "s/g/x", metric: .wallTime, thresholdPercent: 5, verdict: .regressed,
            reason: Reason(Self.slower(.regressed)))
        #expect(entry.explanation == Self.words(Self.slower(.regressed)))
        entry.review(.rerunMissing)
        #expect(entry.reason.reviews == [.rerunMissing])
        #expect(entry.explanation.hasSuffix("so the regression stands"))
        var read = ComparisonEntry(
            id: "s/g/y", metric: .wallTime, thresholdPercent: 5, verdict: .regressed, explanation: "old words")
        read.review(.busyMachineInconclusive, verdict: .inconclusive)
        #expect(read.verdict == .inconclusive)
        #expect(read.explanation == "old words; inconclusive: the machine was busy, measure again when it is quieter")
    }
}
