import Foundation
import PerfReport
import Testing

@testable import Harness

/// The union `swift package perfkit run` makes of its benchmark executables' reports.
@Suite struct ReportUnionTests {
    func values(_ center: Double) -> [Double] { (0..<10).map { center + Double($0) } }

    @Test func benchmarksSideBySideAndTheEarliestStart() throws {
        var first = Synthetic.report(
            [Synthetic.result("A/g/x", nanosecondsPerOperation: values(100))],
            createdAt: Date(timeIntervalSince1970: 2000))
        first.settings.filter = "x"
        var second = Synthetic.report(
            [
                Synthetic.result("B/g/y", nanosecondsPerOperation: values(200)),
                Synthetic.result("B/g/z", nanosecondsPerOperation: values(300)),
            ], createdAt: Date(timeIntervalSince1970: 1000))
        second.settings.filter = "y|z"
        second.stalls = []

        let union = try #require(try ReportUnion.union([first, second]))
        #expect(union.benchmarks.map(\.id) == ["A/g/x", "B/g/y", "B/g/z"])
        #expect(union.createdAt == Date(timeIntervalSince1970: 1000))
        #expect(union.settings.filter == nil)
        #expect(union.complete)
        #expect(union.stalls == [])
        #expect(union.startup == nil)
    }

    @Test func anIncompleteOrUnmeasuredPartShowsInTheUnion() throws {
        var first = Synthetic.report([Synthetic.result("A/g/x", nanosecondsPerOperation: values(100))])
        first.metrics.append(MetricAvailability(metric: .allocations, available: true))
        var second = Synthetic.report([Synthetic.result("B/g/y", nanosecondsPerOperation: values(100))])
        second.metrics.append(MetricAvailability(metric: .allocations, available: false, reason: "not requested"))
        second.complete = false
        second.incompleteReason = "interrupted"

        let union = try #require(try ReportUnion.union([first, second]))
        #expect(!union.complete)
        #expect(union.incompleteReason == "interrupted")
        let allocations = union.metrics.first { $0.metric == .allocations }
        #expect(allocations?.available == false)
        #expect(allocations?.reason == "not requested")
    }

    @Test func anIdInTwoReportsIsAnErrorAndNothingIsNoReport() throws {
        let report = Synthetic.report([Synthetic.result("A/g/x", nanosecondsPerOperation: values(100))])
        #expect(throws: ReportUnion.DuplicateBenchmarks.self) { try ReportUnion.union([report, report]) }
        #expect(try ReportUnion.union([]) == nil)
    }
}
