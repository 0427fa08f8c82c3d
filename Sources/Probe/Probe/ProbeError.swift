/// The one shape of Probe's refusals and failures (``Watchdog/StartError``, ``ProfileServer/StartError``,
/// ``MemoryWatchError``, ``StartupLauncher/LaunchError``, ``ProcessProfiler/ProfileError``): a kind to
/// switch on, a one-line message naming what failed and why, and what is behind it where there is
/// something: the file, the system's error number, the request's parameter.
public struct ProbeError<SpecificKind: Sendable & Equatable>: Error, CustomStringConvertible, Sendable, Equatable {
    /// Each API's own kinds (`Watchdog.StartError.Kind`, …).
    public typealias Kind = SpecificKind

    public var kind: Kind
    public var message: String
    /// The file or directory at fault, where there is one.
    public var path: String?
    /// The errno behind it, where a system call failed.
    public var errorNumber: Int32?
    /// The request's parameter the message is about (`rate`, `duration`), where there is one.
    public var parameter: String?

    public var description: String { message }

    package init(
        _ kind: Kind, _ message: String, path: String? = nil, errorNumber: Int32? = nil, parameter: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.path = path
        self.errorNumber = errorNumber
        self.parameter = parameter
    }

    package init(kind: Kind, message: String, path: String? = nil, errorNumber: Int32? = nil) {
        self.init(kind, message, path: path, errorNumber: errorNumber)
    }
}
