import Foundation
import PerfReport
import Testing

@testable import Harness

/// A report's round factors (#51, item 2): optional, in the schema, and kept apart when reports of
/// several executables are put side by side.
@Suite struct RoundFactorsCodingTests {
    /// Four benchmarks in one process of 3 rounds, 4 samples a round; the machine at `machine[round]`.
    static func report(machine: [Double] = [1, 1, 1], prefix: String = "s/g/") -> Report {
        Synthetic.report(
            (0..<4).map { index in
                let values = machine.flatMap { level in
                    Synthetic.normal(
                        count: 4, mean: 100 * Double(index + 1) * level, relativeSpread: 0.002,
                        seed: UInt64(index))
                }
                var result = Synthetic.result("\(prefix)b\(index)", nanosecondsPerOperation: values)
                for sample in result.samples.indices { result.samples[sample].round = sample / 4 }
                return result
            })
    }

    @Test func roundFactorsRoundTripAndValidateAgainstTheSchema() throws {
        var report = Self.report(machine: [1, 1, 1.4])
        let factors = try #require(RoundFactorModel.factors(report))
        #expect(factors.processes.count == 1 && factors.processes[0].process == nil)
        #expect(factors.processes[0].factors.count == 3)
        #expect(factors.jumps.map(\.round) == [2])
        report.roundFactors = factors
        let data = try ReportCoding.encode(report)
        #expect(try ReportCoding.decode(data, path: "r.json").roundFactors == factors)
        let object = try JSONSerialization.jsonObject(with: data)
        #expect(try JSONSchemaValidator(schemaURL: ReportSchemaTests.schemaURL).validate(object) == [])

        // A round too few benchmarks shared has a null factor, which the schema allows too.
        report.roundFactors?.processes[0].factors[1] = nil
        let unknown = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report))
        #expect(try JSONSchemaValidator(schemaURL: ReportSchemaTests.schemaURL).validate(unknown) == [])
    }

    @Test func aReportWithoutRoundFactorsStillLoads() throws {
        let data = try ReportCoding.encode(Self.report())
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect(object["roundFactors"] == nil)
        #expect(try ReportCoding.decode(data, path: "old.json").roundFactors == nil)
        // One round everywhere: nothing to say.
        var one = Self.report(machine: [1])
        #expect(RoundFactorModel.factors(one) == nil)
        one.benchmarks[0].samples[0].round = nil
        #expect(RoundFactorModel.cells(of: one.benchmarks[0]) == nil)
    }

    /// Reports of two executables: the second's rounds follow the first's, so that no round's
    /// factor mixes benchmarks that were not measured side by side.
    @Test func aUnionNumbersEachReportsRoundsAfterThePrevious() throws {
        var first = Self.report(machine: [1, 1, 1.4])
        first.roundFactors = RoundFactorModel.factors(first)
        let second = Self.report(prefix: "t/g/")
        let union = try #require(try ReportUnion.union([first, second]))
        #expect(union.roundFactors == nil)
        #expect(Set(union.benchmarks[0].samples.compactMap(\.round)) == [0, 1, 2])
        #expect(Set(union.benchmarks[4].samples.compactMap(\.round)) == [3, 4, 5])
        let factors = try #require(RoundFactorModel.factors(union))
        #expect(factors.jumps.map(\.round) == [2])
    }
}
