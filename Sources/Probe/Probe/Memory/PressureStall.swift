import Foundation

/// Pressure stall information (PSI, the kernel's Documentation/accounting/psi.rst) for memory: the
/// share of time in which some (or all) runnable tasks waited for memory — reclaim, refaults of
/// evicted pages, swap-in — over the last 10, 60 and 300 s, and in total.
public struct PressureStall: Sendable, Equatable, Codable {
    /// Percent of wall time at least one task was stalled on memory, over 10, 60 and 300 s.
    public var someAvg10: Double
    public var someAvg60: Double
    public var someAvg300: Double
    /// Microseconds at least one task was stalled on memory, in total.
    public var someTotalMicroseconds: UInt64
    /// The same with every non-idle task stalled at once (no progress at all).
    public var fullAvg10: Double
    public var fullTotalMicroseconds: UInt64

    /// Parses a pressure file's "some …" and "full …" lines; nil when there is no "some" line.
    static func parse(_ text: String) -> PressureStall? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// The `key=value` fields of one line that `parse` reads, as byte ranges of the file.
    private struct LineFields {
        var avg10, avg60, avg300, total: UnsafeRawBufferPointer?
    }

    /// `parse` over the file's bytes: a line's fields split at spaces, each at its first `=`; a
    /// later "some" or "full" line replaces an earlier one, a later field of a line its namesake.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> PressureStall? {
        var some: LineFields?
        var full: LineFields?
        ByteText.forEachLine(in: bytes) { line in
            var kind = 0  // 1: some, 2: full, 0: another line
            var fields = LineFields()
            ByteText.forEachField(in: line) { index, field in
                if index == 0 {
                    kind = ByteText.equals(field, "some") ? 1 : ByteText.equals(field, "full") ? 2 : 0
                    return kind != 0
                }
                guard let equals = field.firstIndex(of: UInt8(ascii: "=")), equals > 0, equals < field.count - 1
                else { return true }
                let key = UnsafeRawBufferPointer(rebasing: field[..<equals])
                let value = UnsafeRawBufferPointer(rebasing: field[(equals + 1)...])
                if ByteText.equals(key, "avg10") {
                    fields.avg10 = value
                } else if ByteText.equals(key, "avg60") {
                    fields.avg60 = value
                } else if ByteText.equals(key, "avg300") {
                    fields.avg300 = value
                } else if ByteText.equals(key, "total") {
                    fields.total = value
                }
                return true
            }
            if kind == 1 { some = fields } else if kind == 2 { full = fields }
        }
        guard let some, let avg10 = some.avg10.flatMap(ByteText.double) else { return nil }
        return PressureStall(
            someAvg10: avg10, someAvg60: some.avg60.flatMap(ByteText.double) ?? 0,
            someAvg300: some.avg300.flatMap(ByteText.double) ?? 0,
            someTotalMicroseconds: some.total.flatMap(ByteText.decimal) ?? 0,
            fullAvg10: full?.avg10.flatMap(ByteText.double) ?? 0,
            fullTotalMicroseconds: full?.total.flatMap(ByteText.decimal) ?? 0)
    }

    /// A PSI trigger: the kernel wakes a poll() on the returned descriptor (POLLPRI) when tasks
    /// were stalled on memory for `stall` within any `window` (at most once per window). The window
    /// must lie between 500 ms and 10 s; without CAP_SYS_RESOURCE, kernels from 6.5 on accept only
    /// whole multiples of 2 s. Returns the descriptor, or why it could not be armed.
    static func trigger(file: String, stall: Duration, window: Duration, full: Bool = false) -> Result<
        Int32, TriggerError
    > {
        let fd = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(TriggerError(file: file, errno: errno, stage: "open")) }
        let text = "\(full ? "full" : "some") \(stall.nanoseconds / 1000) \(window.nanoseconds / 1000)"
        // The kernel wants the terminating NUL written too.
        let written = text.withCString { write(fd, $0, strlen($0) + 1) }
        guard written >= 0 else {
            let error = errno
            close(fd)
            return .failure(TriggerError(file: file, errno: error, stage: "write \"\(text)\" to"))
        }
        return .success(fd)
    }

    /// `trigger`, and when the kernel refuses the window because this process lacks
    /// CAP_SYS_RESOURCE (EINVAL for a window that is not a whole number of 2 s), once more with the
    /// window rounded up to the next 2 s and the stall scaled with it; `note` then says so.
    static func armTrigger(file: String, stall: Duration, window: Duration) -> Result<
        (fd: Int32, note: String?), TriggerError
    > {
        switch trigger(file: file, stall: stall, window: window) {
        case .success(let fd): return .success((fd, nil))
        case .failure(let error) where error.errno == EINVAL && window.nanoseconds % 2_000_000_000 != 0:
            let seconds = (window.nanoseconds + 1_999_999_999) / 2_000_000_000 * 2
            let wider = Duration.seconds(Int64(seconds))
            let scaled = Duration.nanoseconds(
                Int64(Double(stall.nanoseconds) * Double(seconds) * 1e9 / Double(window.nanoseconds)))
            switch trigger(file: file, stall: scaled, window: wider) {
            case .success(let fd):
                return .success(
                    (
                        fd,
                        "the pressure trigger is armed at \(scaled) in \(wider), not \(stall) in \(window): without CAP_SYS_RESOURCE the kernel takes only windows of whole 2 s"
                    ))
            case .failure: return .failure(error)
            }
        case .failure(let error): return .failure(error)
        }
    }

    struct TriggerError: Error, Equatable {
        var file: String
        var errno: Int32
        var stage: String

        var description: String {
            let reason = String(cString: strerror(self.errno))
            switch self.errno {
            case EACCES, EPERM:
                return
                    "cannot \(stage) \(file) (\(reason)): a pressure trigger needs write access, and without CAP_SYS_RESOURCE a window that is a multiple of 2 s"
            case EINVAL:
                return
                    "cannot \(stage) \(file) (\(reason)): the stall must be shorter than the window, the window 500 ms to 10 s (a whole number of 2 s without CAP_SYS_RESOURCE)"
            case EOPNOTSUPP:
                return "cannot \(stage) \(file) (\(reason)): PSI is switched off in this kernel (psi=0)"
            default:
                return "cannot \(stage) \(file) (\(reason))"
            }
        }
    }
}
