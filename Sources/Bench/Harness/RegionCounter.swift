/// Counts instructions (and, where the hardware allows, cycles) over one measured region: the
/// hardware counters of `perf_event_open`, or callgrind when perfkit runs under valgrind.
///
/// The runner calls `start()` just before the region and `pause()` just after it, then stops the
/// allocation counter, then calls `read(label:)`: reading may allocate (callgrind's dump is a file),
/// so it must not happen while allocations are being counted.
protocol RegionCounter: AnyObject {
    func start()
    func pause()
    func read(label: String) -> (instructions: Double?, cycles: Double?)
}
