import ProbeRecords

/// The ring behind ``Watchdog/recentStalls``: the latest stall records, kept packed.
///
/// A record is mostly repetition (frames, group keys, a thread state per sample), so frames and group
/// keys are kept once per ring (``StallTables``), a call tree is three flat arrays indexing them, and
/// thread states are runs (docs/probe-in-a-server.md#soak). `records` rebuilds records equal to the ones added.
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
