import Foundation

/// An image's function entries in memory of their own that never moves, so that code which cannot
/// call Swift (Probe's signal handler, deciding from a function's first bytes where an interrupted
/// frame's return address is) can search them in place. Filled and sorted once by the parser, then
/// immutable; freed with the last image holding it.
///
/// A table of 128 KiB or more is a mapping of its own, not malloc's: glibc serves such a block by
/// `mmap`, and freeing one raises the process's mmap threshold to its size, after which every block
/// below it (the service's too) comes from the arenas, where freed memory stays resident
/// (docs/probe-in-a-server.md, "malloc's mmap threshold").
final class FunctionTable: @unchecked Sendable {
    let entries: UnsafeMutableBufferPointer<ELFImage.Entry>
    private let mappedBytes: Int

    /// Blocks this large or larger are mapped here: glibc's first mmap threshold (128 KiB).
    static let smallestMapped = 128 * 1024

    /// Room for `count` entries, each set by the caller before the table is read.
    init(count: Int) {
        // C reads the entries as three uint32_t each.
        precondition(
            MemoryLayout<ELFImage.Entry>.stride == 12 && MemoryLayout<ELFImage.Entry>.offset(of: \.offset) == 0
                && MemoryLayout<ELFImage.Entry>.offset(of: \.size) == 4
                && MemoryLayout<ELFImage.Entry>.offset(of: \.name) == 8)
        let bytes = count * MemoryLayout<ELFImage.Entry>.stride
        if bytes >= Self.smallestMapped,
            let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            region != MAP_FAILED
        {
            entries = UnsafeMutableBufferPointer(
                start: region.bindMemory(to: ELFImage.Entry.self, capacity: count), count: count)
            mappedBytes = bytes
        } else {
            entries = .allocate(capacity: count)
            mappedBytes = 0
        }
        entries.update(repeating: ELFImage.Entry(offset: 0, size: 0, name: 0))
    }

    deinit {
        if mappedBytes > 0 { munmap(entries.baseAddress, mappedBytes) } else { entries.deallocate() }
    }

    /// Sorts the entries by start, aliases (one start) the largest first, then by name so that the
    /// order is total. A heapsort, in place: the standard library's sort takes a scratch buffer of
    /// half the table (~480 KiB for libFoundation's), which raised malloc's mmap threshold when freed.
    func sortByStart() {
        let table = entries
        func before(_ a: ELFImage.Entry, _ b: ELFImage.Entry) -> Bool {
            if a.offset != b.offset { return a.offset < b.offset }
            if a.size != b.size { return a.size > b.size }
            return a.name < b.name
        }
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end && before(table[child], table[child + 1]) { child += 1 }
                guard before(table[root], table[child]) else { return }
                table.swapAt(root, child)
                root = child
            }
        }
        let count = table.count
        guard count > 1 else { return }
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            table.swapAt(0, end)
            siftDown(0, end)
        }
    }
}
