import PerfReport

/// The machine's common factor in each round of each process of one report (docs/regression-gate.md,
/// "Rounds, and the machine within a process"): a neighbour arriving halfway through a process slows
/// the rounds after it, for every benchmark alike. Dividing each sample by its round's factor before
/// a process's median is taken keeps that median from depending on when in the round it was measured.
package struct RoundFactorModel {
    /// A round of a process.
    struct Cell: Hashable {
        var process: Int
        var round: Int
    }

    /// Each benchmark's median in each round of a process divided by its median over that process's
    /// rounds, by round then id; only benchmarks whose every sample has a round, in processes where
    /// they were measured in two rounds or more.
    let ratios: [Cell: [String: Double]]

    init(_ report: Report, metric: Metric) {
        var ratios: [Cell: [String: Double]] = [:]
        for result in report.benchmarks {
            guard let values = Comparator.sampledValues(result, metric), !values.isEmpty,
                let cells = Self.cells(of: result)
            else { continue }
            var byCell: [Cell: [Double]] = [:]
            var byProcess: [Int: [Double]] = [:]
            for (value, cell) in zip(values, cells) {
                byCell[cell, default: []].append(value)
                byProcess[cell.process, default: []].append(value)
            }
            let reference = byProcess.mapValues { SampleStatistics.median($0) }
            // A benchmark measured in one round of a process (one visit) is at its own level there by
            // definition: its ratio of 1 would pull that round's factor towards 1 whatever the machine did.
            var roundsIn: [Int: Int] = [:]
            for cell in byCell.keys { roundsIn[cell.process, default: 0] += 1 }
            for (cell, values) in byCell where roundsIn[cell.process]! >= 2 {
                let level = SampleStatistics.median(values)
                guard let base = reference[cell.process], base > 0, level > 0 else { continue }
                ratios[cell, default: [:]][result.id] = level / base
            }
        }
        self.ratios = ratios
    }

    /// The round and process of every sample (process 0 when untagged), or nil when a sample has no
    /// round (a report of an older perfkit).
    static func cells(of result: BenchmarkResult) -> [Cell]? {
        var cells: [Cell] = []
        cells.reserveCapacity(result.samples.count)
        for sample in result.samples {
            guard let round = sample.round else { return nil }
            cells.append(Cell(process: sample.process ?? 0, round: round))
        }
        return cells
    }

    /// The machine's factor in `cell` for benchmark `id`: the median of the other benchmarks' ratios
    /// there (leave-one-out, so that `id`'s own swing is not in it); nil with fewer than
    /// ``ProcessFactors/minimumOthers`` of them.
    func factor(of id: String, in cell: Cell) -> Double? {
        guard let byID = ratios[cell] else { return nil }
        let others = byID.compactMap { $0.key == id ? nil : $0.value }
        return others.count >= ProcessFactors.minimumOthers ? SampleStatistics.median(others) : nil
    }

    /// How far apart the machine's factors in a process's rounds lie (``ProcessFactors/spreadPercent(_:)``
    /// of each round's median ratio over every benchmark), by process; only processes with two rounds
    /// or more whose factors can be told.
    func roundSpreadPercent() -> [Int: Double] {
        var byProcess: [Int: [Double]] = [:]
        for (cell, byID) in ratios where byID.count >= ProcessFactors.minimumOthers + 1 {
            byProcess[cell.process, default: []].append(SampleStatistics.median(Array(byID.values)))
        }
        return byProcess.filter { $0.value.count >= 2 }.mapValues { ProcessFactors.spreadPercent($0) }
    }

    /// `values` (of `result`, in sample order) each divided by the machine's factor in its round, in
    /// every process where each of the benchmark's rounds has one; a process with a round whose factor
    /// cannot be told keeps its values as measured, so that its level is not half divided.
    func divided(_ values: [Double], of result: BenchmarkResult) -> [Double] {
        guard let cells = Self.cells(of: result), cells.count == values.count else { return values }
        var factors: [Cell: Double] = [:]
        var raw: Set<Int> = []
        for cell in Set(cells) {
            if let factor = factor(of: result.id, in: cell), factor > 0 {
                factors[cell] = factor
            } else {
                raw.insert(cell.process)
            }
        }
        return zip(values, cells).map { value, cell in raw.contains(cell.process) ? value : value / factors[cell]! }
    }

    /// The report's ``RoundFactors``: in each round of each process, the median of every benchmark's
    /// ratio there (known with ``ProcessFactors/minimumOthers`` + 1 benchmarks, so that each has its
    /// others); nil when no process ran more than one round.
    package static func factors(_ report: Report, metric: Metric = .wallTime) -> RoundFactors? {
        let levels = RoundFactorModel(report, metric: metric)
        var rounds: [Int: Int] = [:]
        var tagged = false
        for result in report.benchmarks {
            tagged = tagged || result.samples.contains { $0.process != nil }
            for cell in cells(of: result) ?? [] {
                rounds[cell.process] = max(rounds[cell.process] ?? 0, cell.round + 1)
            }
        }
        guard rounds.values.contains(where: { $0 >= 2 }) else { return nil }
        let minimum = ProcessFactors.minimumOthers + 1
        let processes = rounds.keys.sorted().map { process in
            RoundFactors.Process(
                process: tagged ? process : nil,
                factors: (0..<rounds[process]!).map { round -> Double? in
                    let ratios = levels.ratios[Cell(process: process, round: round)].map { Array($0.values) } ?? []
                    return ratios.count >= minimum ? SampleStatistics.median(ratios) : nil
                })
        }
        return RoundFactors(
            boundPercent: ProcessFactors.factorBoundPercent, minimumBenchmarks: minimum, processes: processes)
    }
}
