import CProbe
import Glibc

/// This process's thread ids, listed from `/proc/self/task` on a descriptor kept open into a buffer
/// kept too (`getdents64`, nothing allocated once the buffer fits). Owned by one thread.
struct TaskListing: ~Copyable {
    private var fd: Int32 = -1
    private var tids = [Int32](repeating: 0, count: 256)
    private var count = 0

    init() {}

    deinit { if fd >= 0 { close(fd) } }

    /// Lists the threads again; the previous listing stays when this one fails.
    mutating func refresh() {
        if fd < 0 { fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        var listed = tids.withUnsafeMutableBufferPointer {
            Int(cprobe_list_threads(fd, $0.baseAddress, Int32($0.count)))
        }
        if listed > tids.count {
            tids = [Int32](repeating: 0, count: listed * 2)
            listed = tids.withUnsafeMutableBufferPointer {
                Int(cprobe_list_threads(fd, $0.baseAddress, Int32($0.count)))
            }
        }
        guard listed >= 0 else { return }
        count = min(listed, tids.count)
    }

    /// The latest listing.
    var threads: ArraySlice<Int32> { tids[..<count] }
}
