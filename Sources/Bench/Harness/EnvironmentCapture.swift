import Foundation
import PerfReport
import PerfkitPlatform
import PerfkitTools

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the facts of the machine a run happens on. Every reader degrades to "unknown" (or nil)
/// rather than failing: a missing /proc file must not stop a benchmark run.
public enum EnvironmentCapture {
    public static func capture(buildConfiguration: String) -> Environment {
        let architecture = machineArchitecture()
        return Environment(
            host: ProcessInfo.processInfo.hostName,
            os: osName(),
            kernel: kernelRelease(),
            cpuModel: cpuModel(),
            coreCount: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            swiftVersion: swiftVersion(),
            buildConfiguration: buildConfiguration,
            gitCommit: gitCommit(),
            loadAverage: loadAverage(),
            cpuGovernor: readLine(atPath: "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            architecture: architecture, emulator: emulator(architecture: architecture),
            deterministicHashing: deterministicHashing())
    }

    /// The variable that makes Swift hash with its one fixed seed, read by its runtime at start.
    package static let deterministicHashingVariable = "SWIFT_DETERMINISTIC_HASHING"

    /// Whether Swift hashes with its one fixed seed here rather than a seed of this process's own:
    /// `SWIFT_DETERMINISTIC_HASHING` true as the runtime parses a boolean (its first character one
    /// of `1`, `t`, `T`, `y`, `Y`).
    package static func deterministicHashing(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard let first = environment[deterministicHashingVariable]?.first else { return false }
        return "1tTyY".contains(first)
    }

    /// `uname -m`: the architecture this process runs as (an emulator answers with the emulated one).
    static func machineArchitecture() -> String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// What emulates `architecture` here, or nil on real hardware: a user-mode emulator passes the
    /// kernel's `/proc/cpuinfo` through, which then describes the host's processor family, not
    /// ours. qemu-user also answers `/proc/self/stat` itself, with "0" for the state.
    static func emulator(
        architecture: String, cpuinfo: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
    ) -> String? {
        guard let cpuinfo, let described = CPUInfo.architecture(described: cpuinfo), described != architecture
        else { return nil }
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) ?? ""
        let state = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ").first } ?? nil
        return state == "0" ? "qemu-user" : "user-mode emulation"
    }

    static func osName() -> String {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "unknown"
    }

    static func kernelRelease() -> String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        return cpuModel(cpuinfo: text)
    }

    /// x86-64's "model name"; on arm64, which has none, the core named from "CPU implementer" and
    /// "CPU part" (Graviton 2, 3 and 4 are Neoverse N1, V1 and V2).
    static func cpuModel(cpuinfo text: String) -> String {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            if fields[key] == nil {
                fields[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        if let model = fields["model name"] { return model }
        guard let implementer = fields["CPU implementer"], let part = fields["CPU part"] else { return "unknown" }
        let armCores = [
            "0xd03": "Cortex-A53", "0xd08": "Cortex-A72", "0xd0b": "Cortex-A76", "0xd0c": "Neoverse N1",
            "0xd40": "Neoverse V1", "0xd49": "Neoverse N2", "0xd4f": "Neoverse V2", "0xd8e": "Neoverse N3",
        ]
        if implementer == "0x41", let core = armCores[part] { return "Arm \(core)" }
        if implementer == "0x61" { return "Apple (part \(part))" }
        return "arm64 (implementer \(implementer), part \(part))"
    }

    /// The compiler that built this binary, from the compile-time version check, refined with the
    /// toolchain on PATH when it is the same major.minor version. Asks `swift-frontend`, not the
    /// `swift` driver: the 6.3 driver leaves an empty `$TMPDIR/TemporaryDirectory.*` behind on every
    /// `swift --version`, one per run.
    static func swiftVersion() -> String {
        #if compiler(>=6.4)
            let compiled = "6.4 or newer"
        #elseif compiler(>=6.3)
            let compiled = "6.3"
        #elseif compiler(>=6.2)
            let compiled = "6.2"
        #else
            let compiled = "6.1"
        #endif
        let lines = run(["swift-frontend", "--version"])?.split(separator: "\n") ?? []
        if let line = lines.first(where: { $0.contains("Swift version") }), line.contains("Swift version \(compiled)") {
            return String(line)
        }
        return "Swift \(compiled) (compile-time check)"
    }

    static func gitCommit() -> String? {
        guard let commit = run(["git", "rev-parse", "HEAD"])?.trimmingCharacters(in: .whitespacesAndNewlines),
            !commit.isEmpty
        else { return nil }
        let dirty = run(["git", "status", "--porcelain", "--untracked-files=no"]).map { !$0.isEmpty } ?? false
        return dirty ? commit + "-dirty" : commit
    }

    static func loadAverage() -> [Double] {
        var values = [Double](repeating: 0, count: 3)
        let n = getloadavg(&values, 3)
        return n == 3 ? values : []
    }

    static func readLine(atPath path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.isEmpty ? nil : line
    }

    /// Runs a command found on PATH and returns its stdout, or nil if it could not run or failed.
    static func run(_ arguments: [String]) -> String? {
        guard let executable = ExternalTool.locateOnPath(arguments[0]),
            let data = try? ExternalTool.output(of: executable, Array(arguments.dropFirst()))
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
