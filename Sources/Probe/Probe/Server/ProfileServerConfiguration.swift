import Foundation

/// Where and how a ``ProfileServer`` listens. The defaults are safe to ship: loopback only, any free
/// port, no token needed (only the machine's own users can connect).
public struct ProfileServerConfiguration: Sendable, Equatable {
    /// The socket to listen on.
    public enum Address: Sendable, Equatable {
        /// `127.0.0.1:port`; port 0 takes any free port (read it from ``ProfileServer/port``).
        case loopback(port: Int)
        /// A numeric IPv4 address and port. Anything outside 127.0.0.0/8 needs
        /// ``ProfileServerConfiguration/allowNonLoopback`` and a ``ProfileServerConfiguration/bearerToken``.
        case tcp(host: String, port: Int)
        /// A Unix domain socket, created with mode 0600 (a stale socket file there is replaced).
        case unixSocket(path: String)
    }

    public var address: Address
    /// Must be true to listen outside loopback: profiles show code paths and thread names.
    public var allowNonLoopback: Bool
    /// When set, every route but `/health` needs `Authorization: Bearer <token>`; required with
    /// ``allowNonLoopback``.
    public var bearerToken: String?
    /// The longest `seconds` a profile request may ask for, at most ``ProfileRequest/longestDuration``.
    public var longestProfile: Duration
    /// How long a client may take to send its request or take a response's bytes before it is dropped.
    package var ioTimeout: Duration = .seconds(10)
    /// Connections waiting for their request at once (each one descriptor); one more makes the one
    /// waiting longest go with a 503.
    package var connectionLimit = 64

    public init(
        address: Address = .loopback(port: 0), allowNonLoopback: Bool = false, bearerToken: String? = nil,
        longestProfile: Duration = ProfileRequest.longestDuration
    ) {
        self.address = address
        self.allowNonLoopback = allowNonLoopback
        self.bearerToken = bearerToken
        self.longestProfile = longestProfile
    }
}

extension ProfileServer {
    /// What went wrong, for ``StartError``.
    public enum StartErrorKind: Sendable, Equatable {
        /// A setting cannot work (a non-loopback address without the option or a token, a cap
        /// over 300 s, a bad port or path; the message says which).
        case invalidConfiguration
        /// The socket could not be created, bound or listened on (`errorNumber` says why).
        case socketUnavailable
        /// The server is running already.
        case alreadyRunning
    }

    /// Why ``ProfileServer/start()`` refused: a kind to switch on, a one-line message, and the
    /// system's error number where there is one.
    public typealias StartError = ProbeError<StartErrorKind>
}
