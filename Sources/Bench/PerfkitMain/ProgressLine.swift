import Foundation
import Harness

#if canImport(Glibc)
    import Glibc
#endif

/// "benchmark i of n, elapsed, ETA" on stderr, redrawn in place, only when stderr is a terminal.
final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) == 1

    func update(_ progress: BenchmarkSession.Progress) {
        guard enabled, progress.index < progress.total else { return }
        var line = "[\(progress.index + 1)/\(progress.total)] \(progress.id)"
        if progress.rounds > 1 { line += "  round \(progress.round)/\(progress.rounds)" }
        line += "  elapsed \(Int(progress.elapsedSeconds))s"
        if progress.index > 0 {
            let eta = progress.elapsedSeconds / Double(progress.index) * Double(progress.total - progress.index)
            line += "  ETA \(Int(eta.rounded()))s"
        }
        printError("\r\u{1B}[K" + line)
    }

    func finish() {
        if enabled { printError("\r\u{1B}[K") }
    }
}
