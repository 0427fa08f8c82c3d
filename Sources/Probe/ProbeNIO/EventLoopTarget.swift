import NIOCore
public import Probe

extension WatchTarget {
    /// One SwiftNIO event loop, watched by pings it executes. A loop owns one thread, so the
    /// thread sampled in a stall is exactly the loop's.
    ///
    /// The loop itself (not `name`) identifies the target, so a second watchdog on the same loop
    /// does not start, whatever it is called. Stop the watchdog before the loop shuts down: a
    /// loop that has shut down drops the pings, which would read as a stall.
    public static func eventLoop(_ loop: any EventLoop) -> WatchTarget {
        let address = UInt(bitPattern: Unmanaged.passUnretained(loop as AnyObject).toOpaque())
        return .executor(
            name: "event loop 0x\(String(address, radix: 16))",
            submit: { job in loop.execute(job) })
    }
}
