import Dispatch
import Foundation

// The work the stall routes do. Not inlined, so that a stall's stack names them.

/// Spins on the calling thread (an event loop) for `milliseconds`: a cpu-bound stall.
@inline(never)
func blockTheEventLoop(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var state: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end { state = state &* 6_364_136_223_846_793_005 &+ 1 }
    if state == 42 { print("") }
}

/// The CPU work of `/work?ms=N`, in a plain async handler: what a whole-process profile should
/// name. (A different step from `blockTheEventLoop`'s, so the optimiser keeps the two apart.)
@inline(never)
func computeTheWorkRoute(milliseconds: Int) -> UInt64 {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    while DispatchTime.now().uptimeNanoseconds < end { state ^= state << 13 &+ state >> 7 }
    return state
}

/// The first phase of `/phases`: CPU work (its own step, so the optimiser keeps it apart).
@inline(never)
func computeInPhaseA(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var state: UInt64 = 7
    while DispatchTime.now().uptimeNanoseconds < end { state = state &* 2_862_933_555_777_941_757 &+ 3 }
    if state == 42 { print("") }
}

/// The second phase of `/phases`: a sleep in steps of 5 ms (unlike the other sleeps' bodies).
@inline(never)
func blockInPhaseB(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    while DispatchTime.now().uptimeNanoseconds < end { usleep(5_000) }
}

/// Sleeps in a syscall on the calling thread (an event loop): a blocked stall.
@inline(never)
func sleepOnTheEventLoop(milliseconds: Int) {
    // usleep may return early on a signal; sleep the whole time regardless.
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    while true {
        let now = DispatchTime.now().uptimeNanoseconds
        if now >= end { return }
        usleep(useconds_t((end - now) / 1000))
    }
}

/// Sleeps synchronously on the calling thread: called from a plain `async` request handler, it
/// holds the cooperative-pool thread the handler runs on — the stall most Swift servers have, and
/// the one Probe's pool watchdog records as a long job of that thread.
/// (In steps of at most 10 ms: a body identical to `sleepOnTheEventLoop`'s would be merged with it
/// by the optimiser, and stacks would name that one.)
@inline(never)
func sleepInTheHandler(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    while true {
        let now = DispatchTime.now().uptimeNanoseconds
        if now >= end { return }
        usleep(useconds_t(min(10_000, (end - now) / 1000)))
    }
}

/// Holds a cooperative-pool thread in a synchronous wait (the Swift-concurrency bug Probe's
/// pool watchdog finds): a semaphore nobody signals, waited for with a timeout.
@inline(never)
func waitSynchronouslyInATask(milliseconds: Int) {
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(milliseconds))
}

/// Takes every default-priority pool thread with a synchronous wait for `milliseconds`: no
/// other default-priority task (including the server's request handlers) can start meanwhile.
func starveTheCooperativePool(milliseconds: Int) async {
    let width = ProcessInfo.processInfo.activeProcessorCount
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<width {
            group.addTask(priority: .medium) { waitSynchronouslyInATask(milliseconds: milliseconds) }
        }
    }
}
