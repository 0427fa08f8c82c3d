/// An image's function entries in memory of their own that never moves, so that code which cannot
/// call Swift (Probe's signal handler, deciding from a function's first bytes where an interrupted
/// frame's return address is) can search them in place. Immutable once made; freed with the last
/// image holding it.
final class FunctionTable: @unchecked Sendable {
    let entries: UnsafeMutableBufferPointer<ELFImage.Entry>

    init(_ entries: [ELFImage.Entry]) {
        // C reads the entries as three uint32_t each.
        precondition(
            MemoryLayout<ELFImage.Entry>.stride == 12 && MemoryLayout<ELFImage.Entry>.offset(of: \.offset) == 0
                && MemoryLayout<ELFImage.Entry>.offset(of: \.size) == 4
                && MemoryLayout<ELFImage.Entry>.offset(of: \.name) == 8)
        self.entries = .allocate(capacity: entries.count)
        _ = self.entries.initialize(from: entries)
    }

    deinit {
        entries.deallocate()
    }
}
