import Foundation
import Harness
import PerfReport

/// The build configuration of this perfkit binary; a debug build's numbers are not meaningful.
public let buildConfiguration: String = {
    #if DEBUG
        return "debug"
    #else
        return "release"
    #endif
}()

/// The registered benchmarks `filter` selects; a one-line error when it is not a regular
/// expression or selects nothing (checked before any process is started or anything is built).
@discardableResult
func selectedBenchmarks(_ filter: String?) throws -> BenchmarkSelection {
    do {
        return try BenchmarkSelection(filter: filter, suites: RegisteredSuites.all)
    } catch let error as BenchmarkSelection.InvalidFilter {
        throw PerfkitError(.invalidInput, error.commandLineDescription, cause: error)
    }
}

/// Loads a report given on the command line, turning load problems into one-line errors.
func loadReport(_ path: String) throws -> Report {
    do {
        return try ReportCoding.load(from: URL(fileURLWithPath: path))
    } catch let error as ReportCoding.LoadError {
        throw PerfkitError(error)
    }
}
