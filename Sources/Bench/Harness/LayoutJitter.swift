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
    /// by live blocks, released after `body`: a few of random sizes, and up to three of every small
    /// size.
    ///
    /// Why every small size: a benchmark that allocates and frees one small block per operation gets
    /// the block at the head of that size's free list every time, and which block that is follows
    /// from everything the process allocated before; a few random sizes rarely touch that list.
    /// Taking 0–3 blocks off the head of each list up to 1 KiB gives each visit a block of its own.
    /// It was meant for `Harness/baseline/allocate-array`, which runs at 38–41 ns in most processes
    /// and 53–58 ns in a few, every visit of a process alike: one in five before, about one in ten
    /// since (docs/measurement.md). That slow mode turned out not to be the free list.
    static func withRandomPlacement<Result>(_ body: () throws -> Result) rethrows -> Result {
        var generator = SystemRandomNumberGenerator()
        var padding = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: 16 * Int.random(in: 1...256, using: &generator), alignment: 16)
        }
        for size in stride(from: 16, through: 1024, by: 16) {
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                padding.append(UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16))
            }
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
