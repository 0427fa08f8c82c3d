import CHarness

/// Which CPUs threads run on. Benchmarks that contend from several threads pin one thread per CPU
/// so that "two threads" means two threads running at the same time, not two threads the
/// scheduler may stack on one core for a whole measurement.
public enum CPUAffinity {
    /// The CPUs the calling thread may run on (its affinity mask), ascending; empty if unknown.
    public static func usableCPUs() -> [Int] {
        var cpus = [Int32](repeating: 0, count: 1024)
        let count = charness_usable_cpus(&cpus, Int32(cpus.count))
        return count > 0 ? cpus.prefix(Int(count)).map(Int.init) : []
    }

    /// Restricts the calling thread to `cpu`. Returns whether the kernel accepted it.
    @discardableResult
    public static func pinCurrentThread(to cpu: Int) -> Bool {
        charness_pin_current_thread(Int32(cpu)) == 0
    }
}
