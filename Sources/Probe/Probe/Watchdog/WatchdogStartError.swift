import Foundation

extension Watchdog {
    /// What went wrong, for ``StartError``.
    public enum StartErrorKind: Sendable, Equatable {
        /// A setting cannot work (a threshold below the sample interval, …; the message says which).
        case invalidConfiguration
        /// `jsonLinesPath` cannot be appended to, or `pprofDirectory` cannot take files.
        case outletUnusable
        /// Another running watchdog watches the same target (queue, heartbeat, executor name or
        /// the cooperative pool).
        case alreadyWatched
        /// The sampling signal's handler could not be installed.
        case signalUnavailable
        /// Every sampling slot is taken (at most 32 watchdogs and samplers at once).
        case tooManyWatchdogs
        /// What it watches cannot be seen in this process (``ParkedTaskWatch``: the Swift
        /// runtime's task layout is not one Probe reads; the message says why).
        case unsupported
    }

    /// Why ``Watchdog/start()`` refused: a kind to switch on, a one-line message naming the watchdog
    /// and the problem, and the file or the system's error number behind it where there is one.
    public typealias StartError = ProbeError<StartErrorKind>
}
