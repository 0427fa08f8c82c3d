import Foundation

/// Ctrl-C for the plugin's children. SwiftPM starts the plugin in a process group of its own and,
/// on Ctrl-C, exits without telling it; Foundation gives each child a group of its own too. So the
/// plugin watches for both a SIGINT/SIGTERM of its own and its parent going away, and then
/// interrupts the running child, which writes what it finished, as on a terminal.
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var interrupted = false
    private var child: pid_t?
    private var sources: [any DispatchSourceProtocol] = []

    init() {
        let parent = getppid()
        // Once SwiftPM is gone our output pipes are closed: writing to them must fail, not kill
        // this plugin or (the disposition is inherited) the child finishing its report.
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "perfkit.plugin.interruption")
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [unowned self] in self.interrupt() }
            source.resume()
            sources.append(source)
        }
        let watch = DispatchSource.makeTimerSource(queue: queue)
        watch.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        watch.setEventHandler { [unowned self] in if getppid() != parent { self.interrupt() } }
        watch.resume()
        sources.append(watch)
    }

    var isSet: Bool { lock.withLock { interrupted } }

    /// Records the running child (nil once it ended); a child started after an interruption is
    /// interrupted at once.
    func running(_ pid: pid_t?) {
        let interruptNow = lock.withLock {
            child = pid
            return interrupted && pid != nil
        }
        if interruptNow, let pid { kill(pid, SIGINT) }
    }

    private func interrupt() {
        let pid = lock.withLock {
            let first = !interrupted
            interrupted = true
            return first ? child : nil
        }
        if let pid { kill(pid, SIGINT) }
    }
}
