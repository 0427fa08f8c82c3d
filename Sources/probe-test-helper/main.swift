// A program the Probe tests launch in a child process:
//   probe-test-helper pause-target  — a watched busy loop; reads "stall" / "exit" lines on stdin,
//                                      so a test can SIGSTOP/SIGCONT it and check what was reported.
//   probe-test-helper startup       — marks startup phases (for `perfkit startup` and its test).
import Foundation
import Probe
import Synchronization

@inline(never)
func spinInHelper(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var x: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    if x == 42 { print("") }
}

func pauseTarget() {
    let stallRequested = Atomic<Bool>(false)
    let heartbeatBox = Mutex<Heartbeat?>(nil)
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread {
        heartbeatBox.withLock { $0 = Heartbeat.currentThread() }
        let heartbeat = heartbeatBox.withLock { $0! }
        ready.signal()
        while true {
            heartbeat.beat()  // a loop that never waits: every turn is busy
            if stallRequested.exchange(false, ordering: .relaxed) { spinInHelper(milliseconds: 400) }
            spinInHelper(milliseconds: 2)
        }
    }
    thread.start()
    ready.wait()
    var configuration = WatchdogConfiguration(name: "helper", threshold: .milliseconds(100))
    configuration.sampleInterval = .milliseconds(20)
    let watchdog = Watchdog(watching: .heartbeat(heartbeatBox.withLock { $0! }), configuration: configuration)
    do { try watchdog.start() } catch {
        print("error: \(error)")
        exit(1)
    }
    print("ready")
    fflush(nil)
    while let line = readLine() {
        switch line {
        case "stall":
            let before = watchdog.statistics.stalls
            stallRequested.store(true, ordering: .relaxed)
            let deadline = Date().addingTimeInterval(3)
            while watchdog.statistics.stalls == before, Date() < deadline { usleep(10_000) }
            print("stalled")
        case "exit":
            watchdog.stop()
            let durations = watchdog.recentStalls.map { String(Int($0.durationNanoseconds / 1e6)) }
            print("stalls=\(watchdog.statistics.stalls) durations=\(durations.joined(separator: ","))")
            exit(0)
        default:
            break
        }
        fflush(nil)
    }
}

func startup() {
    Startup.mark("main")
    usleep(20_000)
    Startup.mark("config-loaded")
    usleep(30_000)
    Startup.mark("ready")
}

switch CommandLine.arguments.dropFirst().first {
case "pause-target": pauseTarget()
case "startup": startup()
default:
    FileHandle.standardError.write(Data("usage: probe-test-helper pause-target|startup\n".utf8))
    exit(1)
}
