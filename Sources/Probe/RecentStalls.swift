import PerfReport

/// The ring behind ``Watchdog/recentStalls``: the latest stall records, each sample's thread
/// state kept in one byte.
///
/// Sampled every millisecond, most of a record's memory is its thread states: a `[String]` with
/// 16 bytes per sample (a starved pool's record holds them twice: all threads' together and each
/// thread's own), plus up to as much again of spare capacity left from appending them sample by
/// sample: up to `maxSamplesPerStall` per thread, kept for as long as the record stays in the
/// ring. In the soak of `Examples/watched-service` (three watchdogs, stalls of 150–400 ms) states
/// were 2.4 MB of the full rings' 3 MB. Here each record keeps one byte per sample and no spare
/// capacity; `records` rebuilds records equal to the ones added.
struct RecentStalls {
    private var ring: [PackedStall] = []

    /// Adds a record, dropping the oldest when `capacity` (at least 1) are kept.
    mutating func append(_ record: StallRecord, capacity: Int) {
        let packed = PackedStall(record)
        if ring.count >= max(1, capacity) { ring.removeFirst() }
        ring.append(packed)
    }

    /// The records, oldest first, as they were added.
    var records: [StallRecord] { ring.map(\.record) }
}

/// A stall record with its thread states (and each of its threads' states) packed.
private struct PackedStall {
    private var stripped: StallRecord
    private var states: PackedStates
    private var threadStates: [PackedStates]

    init(_ record: StallRecord) {
        states = PackedStates(record.threadStates)
        threadStates = record.threads?.map { PackedStates($0.threadStates) } ?? []
        stripped = record
        stripped.threadStates = []
        stripped.threads = record.threads?.map { thread in
            var thread = thread
            thread.threadStates = []
            return thread
        }
    }

    var record: StallRecord {
        var record = stripped
        record.threadStates = states.states
        if let threads = record.threads {
            record.threads = zip(threads, threadStates).map { thread, packed in
                var thread = thread
                thread.threadStates = packed.states
                return thread
            }
        }
        return record
    }
}

/// A list of thread states ("R", "S", "D", … one per sample) as one byte per sample indexing the
/// distinct states; kept as given if it has more than 256 distinct ones (it never has).
private struct PackedStates {
    private var names: [String] = []
    private var indices: [UInt8] = []
    private var unpacked: [String]?

    init(_ states: [String]) {
        var indices: [UInt8] = []
        indices.reserveCapacity(states.count)
        for state in states {
            if let index = names.firstIndex(of: state) {
                indices.append(UInt8(index))
            } else if names.count <= Int(UInt8.max) {
                indices.append(UInt8(names.count))
                names.append(state)
            } else {
                names = []
                unpacked = states
                return
            }
        }
        self.indices = indices
    }

    var states: [String] { unpacked ?? indices.map { names[Int($0)] } }
}
