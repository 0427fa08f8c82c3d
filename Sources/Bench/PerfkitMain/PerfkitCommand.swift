import ArgumentParser
import Harness

#if canImport(Glibc)
    import Glibc
#endif

/// The root command: perfkit's generic commands and whatever the executable adds, configured once
/// by ``PerfkitMain/run(suites:commandName:abstract:extraCommands:)`` before the arguments are parsed.
struct PerfkitCommand: ParsableCommand {
    /// Set once, on the main thread, before parsing; only read afterwards.
    nonisolated(unsafe) static var configuration = CommandConfiguration()

    /// The commands every benchmark executable has.
    static let genericCommands: [any ParsableCommand.Type] = [
        ListCommand.self,
        RunCommand.self,
        CompareCommand.self,
        BaselineCommand.self,
        CICommand.self,
        ReportCommand.self,
        MergeCommand.self,
        HistoryCommand.self,
        BisectCommand.self,
    ]

    /// Parses and runs the command, mapping argument-parser's usage exit code (64) to 1 so that
    /// the exit codes are simply 0 (fine), 1 (usage or input error) and 2 (regression).
    static func parseAndRun() -> Never {
        let command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            fail(error)
        }
        // Benchmarks run off the main thread so the main queue is drained, as in a service. Not
        // under valgrind (`--instructions`): valgrind 3.19 crashes on the parked main thread, and
        // instruction counts of the main-queue hop would mean little anyway.
        if command is RunCommand && !CallgrindInstructionCounter.runningOnValgrind {
            nonisolated(unsafe) let command = command
            MainQueueHost.run { execute(command) }
        }
        execute(command)
        Glibc.exit(0)
    }

    private static func execute(_ command: ParsableCommand) {
        var command = command
        do {
            try command.run()
        } catch {
            fail(error)
        }
    }

    static func fail(_ error: any Error) -> Never {
        if error is PerfkitProcess.Interrupted {
            printError("interrupted (temporary files removed)\n")
            Glibc.exit(130)
        }
        if exitCode(for: error) == .validationFailure {
            let message = fullMessage(for: error)
            if !message.isEmpty { printError(message + "\n") }
            Glibc.exit(1)
        }
        exit(withError: error)
    }
}
