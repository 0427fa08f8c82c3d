import PerfReport

/// The ring behind ``Watchdog/recentStalls``: the latest stall records, kept packed.
///
/// A full record is mostly repetition: one ~120-byte `StackFrame` per node of its call tree and
/// again per frame of its most frequent stack(s), though a watchdog's records share a few dozen
/// distinct frames; a thread state of 16 bytes per sample per thread, though a thread stays in one
/// state for long runs; a group key of several hundred bytes, though most records repeat one. In
/// the 4-minute soak of `Examples/watched-service` (three watchdogs, 32 records each, stalls of
/// 150–400 ms) rings keeping frames and group keys per record (states a byte a sample) grew the
/// process's anonymous memory by 644 KiB from minute 1 to 4, against 88 KiB with one record per
/// ring. Here frames and group keys are kept once per ring (``StallTables``), a call tree is three
/// flat arrays indexing them, and thread states are runs. `records` rebuilds records equal to the ones added.
struct RecentStalls {
    private var ring: [PackedStall] = []
    private var tables = StallTables()
    private var appendsSinceCompaction = 0

    /// Adds a record, dropping the oldest when `capacity` (at least 1) are kept.
    mutating func append(_ record: StallRecord, capacity: Int) {
        let capacity = max(1, capacity)
        if ring.count >= capacity { ring.removeFirst(ring.count - capacity + 1) }
        ring.append(PackedStall(record, tables: &tables))
        // What dropped records referenced stays in the tables until the next compaction, once per
        // `capacity` appends: the tables never hold more than what 2 × capacity records use.
        appendsSinceCompaction += 1
        if appendsSinceCompaction >= capacity { compact() }
    }

    /// Drops the latest record.
    mutating func removeLatest() {
        if !ring.isEmpty { ring.removeLast() }
    }

    /// The records, oldest first, as they were added.
    var records: [StallRecord] { ring.map { $0.record(tables: tables) } }

    /// Distinct frames and group keys kept (for the ring's records, and for records dropped since
    /// the last compaction).
    var keptFrameCount: Int { tables.frames.count }
    var keptGroupKeyCount: Int { tables.groupKeys.count }

    /// Keeps only what the ring's records use (once per `capacity` appends, so looking every index
    /// up by value again costs nothing worth saving).
    private mutating func compact() {
        var kept = StallTables()
        ring = ring.map { packed in
            packed.reindexed(
                frames: { kept.frames.index(of: tables.frames[$0]) },
                groupKeys: { kept.groupKeys.index(of: tables.groupKeys[$0]) })
        }
        tables = kept
        appendsSinceCompaction = 0
    }
}
