#if PERFKIT_GATE_CHECK
    import Foundation
#endif

/// A fixed amount of serial work: FNV-1a over a buffer, one multiply per byte, each depending on
/// the last, so neither the optimiser nor the CPU can shorten it. Its time and instructions per
/// operation scale with the buffer, which makes it the benchmark `scripts/gate-check.sh` slows
/// down on purpose to measure what the regression gate detects.
///
/// Only in a build made with `-Xswiftc -DPERFKIT_GATE_CHECK` (the gate check's own scratch
/// path), `PERFKIT_INJECT_SLOWDOWN_PERCENT=p` adds p% more hashing to every operation. Normal
/// builds contain no trace of it.
public final class FixedWork: Sendable {
    public static let injectionEnvironmentKey = "PERFKIT_INJECT_SLOWDOWN_PERCENT"

    let bytes: [UInt8]
    /// Bytes hashed a second time per operation: the injected slowdown (0 unless gate-checking).
    let extraBytes: Int

    public init(bytes count: Int) {
        self.bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #if PERFKIT_GATE_CHECK
            let percent = ProcessInfo.processInfo.environment[Self.injectionEnvironmentKey].flatMap(Double.init) ?? 0
            self.extraBytes = min(count, max(0, Int((Double(count) * percent / 100).rounded())))
        #else
            self.extraBytes = 0
        #endif
    }

    /// One operation.
    public func hash() -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        #if PERFKIT_GATE_CHECK
            if extraBytes > 0 {
                bytes.withUnsafeBufferPointer { buffer in
                    for byte in buffer.prefix(extraBytes) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
                }
            }
        #endif
        return hash
    }
}
