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
    /// Rounds left out of their process's levels (``slowRounds(_:)``).
    let slowRounds: Set<Cell>
    /// The rounds whose factor could be told, the slow ones among them.
    let knownRounds: Int
    /// In a process with slow rounds, the median factor of those it keeps: its samples are divided by
    /// their round's factor relative to that, so that its level is that of the rounds it keeps.
    let keptLevel: [Int: Double]

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
        let factors = Self.roundFactors(ratios)
        let slow = Self.slowRounds(factors)
        slowRounds = slow
        knownRounds = factors.count
        let slowProcesses = Set(slow.map(\.process))
        var kept: [Int: [Double]] = [:]
        for (cell, factor) in factors where slowProcesses.contains(cell.process) && !slow.contains(cell) {
            kept[cell.process, default: []].append(factor)
        }
        keptLevel = kept.mapValues { SampleStatistics.median($0) }
    }

    /// Each round's factor: the median of every benchmark's ratio there, where
    /// ``ProcessFactors/minimumOthers`` + 1 benchmarks give it (each has its others).
    static func roundFactors(_ ratios: [Cell: [String: Double]]) -> [Cell: Double] {
        ratios.filter { $0.value.count >= ProcessFactors.minimumOthers + 1 }
            .mapValues { SampleStatistics.median(Array($0.values)) }
    }

    /// In a process whose rounds' factors lie more than ``MachineFactors/steadyRoundSpreadPercent``
    /// apart, the rounds slower than its fastest by more than that, when at least two others remain:
    /// a neighbour that comes and goes slows each benchmark by its own amount, which no common factor
    /// divides out, so a process's level is taken from the rounds it left alone. Its rounds' spread
    /// still counts all of them: a process whose kept level lies beyond the bound is still one where the
    /// machine moved (``MachineFactors/moved(_:)``). On the moving host (a neighbour on and off every
    /// 4 s) the factor moved within 7–9 of 11 processes, each with rounds on both sides (2026-12-07).
    static func slowRounds(_ factors: [Cell: Double]) -> Set<Cell> {
        let bound = 1 + MachineFactors.steadyRoundSpreadPercent / 100
        var slow: Set<Cell> = []
        for (_, rounds) in Dictionary(grouping: factors, by: { $0.key.process }) {
            guard let fastest = rounds.map(\.value).min(), fastest > 0 else { continue }
            let slower = rounds.filter { $0.value > fastest * bound }.map(\.key)
            if !slower.isEmpty, rounds.count - slower.count >= 2 { slow.formUnion(slower) }
        }
        return slow
    }

    /// Whether each sample of `result` (in sample order) counts towards its process's level: all but
    /// those of ``slowRounds``, unless that would leave the benchmark none in a process.
    func counted(_ result: BenchmarkResult) -> [Bool]? {
        guard !slowRounds.isEmpty, let cells = Self.cells(of: result) else { return nil }
        let kept = Set(cells.filter { !slowRounds.contains($0) }.map(\.process))
        return cells.map { !slowRounds.contains($0) || !kept.contains($0.process) }
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
    /// of each round's median ratio over every benchmark), by process, slow rounds included: only
    /// processes with two rounds or more whose factors can be told.
    func roundSpreadPercent() -> [Int: Double] {
        var byProcess: [Int: [Double]] = [:]
        for (cell, factor) in Self.roundFactors(ratios) {
            byProcess[cell.process, default: []].append(factor)
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
        return zip(values, cells).map { value, cell in
            raw.contains(cell.process) ? value : value * (keptLevel[cell.process] ?? 1) / factors[cell]!
        }
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
