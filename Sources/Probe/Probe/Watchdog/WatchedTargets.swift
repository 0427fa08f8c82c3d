import Synchronization

/// The targets of the running watchdogs. One target, one watchdog: two would report every stall
/// twice and sample the same thread with two signals at once.
enum WatchedTargets {
    /// Target identity → the name of the watchdog watching it.
    private static let watched = Mutex<[String: String]>([:])

    /// Claims `target` for watchdog `name`; returns the name of the watchdog that already
    /// watches it instead, if any.
    static func claim(_ target: WatchTarget, by name: String) -> String? {
        watched.withLock { watched in
            if let owner = watched[target.identity] { return owner }
            watched[target.identity] = name
            return nil
        }
    }

    static func release(_ target: WatchTarget) {
        _ = watched.withLock { $0.removeValue(forKey: target.identity) }
    }
}
