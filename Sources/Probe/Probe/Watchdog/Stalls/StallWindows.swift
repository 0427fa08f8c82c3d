import Foundation
import Synchronization

/// The stalls going on or recently ended, by thread, so that whole-process profiles label the
/// samples that fell inside one (`stall_id`). A watchdog adds a stall when it confirms it (a
/// threshold after its start) and closes it with its record; the last 64 are kept.
enum StallWindows {
    struct Window: Sendable {
        var thread: Int32
        /// `<watchdog>@<start>`: the record's `watchdog` and `start` (ISO 8601, ms).
        var id: String
        /// CLOCK_MONOTONIC ns; `end` nil while it goes on.
        var start: UInt64
        var end: UInt64?
    }

    private static let windows = Mutex<[Window]>([])
    private static let kept = 64

    /// The label a stall of `watchdog` that began at `date` goes by.
    static func id(watchdog: String, start date: Date) -> String {
        "\(watchdog)@\(date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))"
    }

    static func begin(thread: Int32, id: String, start: UInt64) {
        windows.withLock { windows in
            if windows.count == kept { windows.removeFirst() }
            windows.append(Window(thread: thread, id: id, start: start, end: nil))
        }
    }

    static func end(thread: Int32, start: UInt64, at end: UInt64) {
        windows.withLock { windows in
            if let index = windows.lastIndex(where: { $0.thread == thread && $0.start == start }) {
                windows[index].end = end
            }
        }
    }

    /// The windows now, for a sampler to look its samples up in without taking the lock each time.
    static var snapshot: [Window] { windows.withLock { $0 } }
}

extension Array where Element == StallWindows.Window {
    /// The stall `thread` was in at `time` (monotonic ns), if any.
    func stall(of thread: Int32, at time: UInt64) -> String? {
        last { $0.thread == thread && $0.start <= time && ($0.end ?? .max) >= time }?.id
    }
}
