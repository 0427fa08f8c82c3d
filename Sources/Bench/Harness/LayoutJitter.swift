/// Shifts where a visit's heap allocations and stack frames land by a random amount: placement (cache
/// sets, 4 KiB aliasing: several percent on a vtable call) is otherwise fixed per process, an offset no
/// number of samples removes; moved every visit, the median over rounds averages it (as Stabilizer does).
/// Only layout changes: nothing here runs inside the timed region, and callgrind counting does not use it.
enum LayoutJitter {
    /// Runs `body` with the stack moved down by up to 4 KiB and the allocator's free lists disturbed
    /// by live blocks, released after `body`: a few of random sizes, and up to three of every small
    /// size up to 1 KiB, so that a benchmark freeing one small block per operation gets a block of its
    /// own each visit rather than the head of that size's free list (docs/measurement.md#stability).
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
