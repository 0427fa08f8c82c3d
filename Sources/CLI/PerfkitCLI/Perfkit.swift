import PerfkitMain
import PixelArtCommands
import ProbeCommands

/// perfkit's own command line: the generic commands over perfkit's suites, through the same entry
/// point a user's benchmark executable calls, and the commands of perfkit's other parts.
@main
enum Perfkit {
    static func main() {
        PerfkitMain.run(
            suites: Suites.all, commandName: "perfkit",
            abstract:
                "A Swift-on-Linux performance toolkit: benchmarks, regression gates, stall watchdog, pixel scaler.",
            extraCommands: [
                ScaleCommand.self, StartupCommand.self, MemoryCommand.self, WatchDemoCommand.self,
                SymbolicateCommand.self,
                StallsCommand.self, MemoryDemoCommand.self, ExplainCodeCommand.self,
            ],
            // Benchmarks that run on several threads: under valgrind threads run one at a time, so
            // these take minutes and count the pool's waiting, which differs from run to run. The
            // PNG encodes on every core are gated through their one-thread twin. Listing tasks reads
            // the whole process's memory, whose size differs from run to run.
            baselineFilter:
                "^(?!DispatchBench/gcd/|Probe/ping/|Probe/profile/|Probe/sample/|Probe/tasks/|PixelArt/scale/|PixelArt/png/encode-rgba8-(1024|4096-upscaled|4096-noise-upscaled)$)"
        )
    }
}
