import PerfReport

/// Where a run was measured, as far as its times depend on it. Series are kept per benchmark ×
/// metric × machine: times from two machines are not one series.
///
/// Host names of CI runners change from job to job (a cloud runner is a new VM each time); such a
/// team names its runner class with `--machine NAME` and the name alone is the key.
public struct MachineFingerprint: Hashable, Codable, Sendable {
    /// A name given with `--machine`; when present it alone identifies the machine.
    public var name: String?
    public var host: String
    public var cpuModel: String
    public var coreCount: Int
    public var kernel: String
    public var swiftVersion: String
    /// "release" or "debug".
    public var buildConfiguration: String

    public init(
        name: String? = nil, host: String, cpuModel: String, coreCount: Int, kernel: String, swiftVersion: String,
        buildConfiguration: String
    ) {
        self.name = name
        self.host = host
        self.cpuModel = cpuModel
        self.coreCount = coreCount
        self.kernel = kernel
        self.swiftVersion = swiftVersion
        self.buildConfiguration = buildConfiguration
    }

    public init(_ environment: Environment, name: String? = nil) {
        self.init(
            name: name, host: environment.host, cpuModel: environment.cpuModel, coreCount: environment.coreCount,
            kernel: environment.kernel, swiftVersion: environment.swiftVersion,
            buildConfiguration: environment.buildConfiguration)
    }

    /// The store's key: the name, or every field (a kernel or Swift update starts a new series:
    /// both move times).
    public var key: String {
        if let name { return "name=\(name)" }
        return [host, cpuModel, "\(coreCount)", kernel, swiftVersion, buildConfiguration].joined(separator: "|")
    }

    /// How a reader recognises it: "ci-large", or "build-7 (AMD EPYC 7B13, 2 cores)".
    public var label: String { name ?? "\(host) (\(cpuModel), \(coreCount) cores)" }
}
