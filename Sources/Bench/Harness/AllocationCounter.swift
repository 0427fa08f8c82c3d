/// Counts allocations made between `start()` and `stop()`.
///
/// The harness does not link an allocator hook itself (a service linking Probe, or a library
/// linking Harness for its own benchmarks, should not get one); the `perfkit` executable passes
/// one backed by malloc-interposer when `--allocations` is given.
public protocol AllocationCounter: Sendable {
    func start()
    /// Allocations and allocated bytes since `start()`.
    func stop() -> (count: Int, bytes: Int)
}
