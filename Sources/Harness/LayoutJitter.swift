/// Shifts where a visit's heap allocations and stack frames land by a random amount.
///
/// A micro-benchmark's time depends on where its data sits: cache-set conflicts and 4 KiB aliasing
/// between stack and heap addresses can move a vtable call by several percent. Left alone, that
/// placement is decided once per process (the allocator hands a fresh instance the block the last
/// one freed), so it shows up as an offset between processes that no number of samples removes.
/// Moving it for every visit turns the offset into spread within the run, which the median over
/// rounds averages (the idea of Curtsinger and Berger's Stabilizer, at visit granularity).
///
/// Only layout changes: nothing here runs inside the timed region, and instruction counting
/// (callgrind) does not use it.
enum LayoutJitter {
    /// Runs `body` with the stack moved down by up to 4 KiB and the allocator's free lists disturbed
    /// by a few live blocks of random sizes, released after `body`.
    static func withRandomPlacement<Result>(_ body: () throws -> Result) rethrows -> Result {
        var generator = SystemRandomNumberGenerator()
        let padding = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: 16 * Int.random(in: 1...256, using: &generator), alignment: 16)
        }
        defer { padding.forEach { $0.deallocate() } }
        // Up to one page, the period of 4 KiB aliasing. Swift places a temporary buffer this size
        // on the stack when the thread has room (perfkit's threads have megabytes), moving the frame.
        let stackBytes = 16 * Int.random(in: 1...255, using: &generator)
        return try withUnsafeTemporaryAllocation(byteCount: stackBytes, alignment: 16) { frame in
            blackHole(frame.baseAddress)
            return try body()
        }
    }
}
