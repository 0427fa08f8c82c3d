import ProbeRecords

/// Distinct values, each kept once and named by its index.
struct InternTable<Value: Hashable> {
    private var values: [Value] = []
    private var indices: [Value: UInt32] = [:]

    var count: Int { values.count }

    subscript(index: UInt32) -> Value { values[Int(index)] }

    /// The index of `value`, added if it is new.
    mutating func index(of value: Value) -> UInt32 {
        if let index = indices[value] { return index }
        let index = UInt32(values.count)
        values.append(value)
        indices[value] = index
        return index
    }
}

/// What the packed records of one ring share.
struct StallTables {
    var frames = InternTable<StackFrame>()
    var groupKeys = InternTable<String>()
}

/// A stall record whose frames and group key live in ``StallTables``: its call tree flattened, its
/// stacks as frame indices, its thread states as runs.
struct PackedStall {
    /// The record without its frames, group key and thread states.
    private var stripped: StallRecord
    private var groupKey: UInt32
    private var tree: PackedCallTree?
    private var topStack: [UInt32]
    private var states: PackedStates
    /// Per thread of ``StallRecord/threads``: its most frequent stack and its states.
    private var threadTopStacks: [[UInt32]]
    private var threadStates: [PackedStates]

    init(_ record: StallRecord, tables: inout StallTables) {
        groupKey = tables.groupKeys.index(of: record.groupKey)
        tree = record.callTree.map { PackedCallTree($0, frames: &tables.frames) }
        topStack = record.topStack.map { tables.frames.index(of: $0) }
        states = PackedStates(record.threadStates)
        threadTopStacks = record.threads?.map { $0.topStack.map { tables.frames.index(of: $0) } } ?? []
        threadStates = record.threads?.map { PackedStates($0.threadStates) } ?? []
        stripped = record
        stripped.groupKey = ""
        stripped.callTree = nil
        stripped.topStack = []
        stripped.threadStates = []
        stripped.threads = record.threads?.map { thread in
            var thread = thread
            thread.topStack = []
            thread.threadStates = []
            return thread
        }
    }

    func record(tables: StallTables) -> StallRecord {
        var record = stripped
        record.groupKey = tables.groupKeys[groupKey]
        record.callTree = tree?.tree(frames: tables.frames)
        record.topStack = topStack.map { tables.frames[$0] }
        record.threadStates = states.states
        if let threads = record.threads {
            record.threads = threads.indices.map { index in
                var thread = threads[index]
                thread.topStack = threadTopStacks[index].map { tables.frames[$0] }
                thread.threadStates = threadStates[index].states
                return thread
            }
        }
        return record
    }

    /// The same record with its indices into the tables passed through the given maps.
    func reindexed(frames: (UInt32) -> UInt32, groupKeys: (UInt32) -> UInt32) -> PackedStall {
        var packed = self
        packed.groupKey = groupKeys(groupKey)
        packed.tree = tree?.reindexed(frames)
        packed.topStack = topStack.map(frames)
        packed.threadTopStacks = threadTopStacks.map { $0.map(frames) }
        return packed
    }
}

/// A call tree in preorder: each node's frame index (``PackedCallTree/noFrame`` for a node
/// without a frame, the root), sample count and number of children.
private struct PackedCallTree {
    static let noFrame = UInt32.max

    private var frames: [UInt32] = []
    private var counts: [Int] = []
    private var childCounts: [UInt32] = []

    init(_ root: CallTreeNode, frames table: inout InternTable<StackFrame>) {
        // Exactly sized: a ring keeps these arrays for as long as the record stays.
        let nodes = Self.nodeCount(root)
        frames.reserveCapacity(nodes)
        counts.reserveCapacity(nodes)
        childCounts.reserveCapacity(nodes)
        append(root, table: &table)
    }

    private static func nodeCount(_ node: CallTreeNode) -> Int {
        node.children.reduce(1) { $0 + nodeCount($1) }
    }

    private mutating func append(_ node: CallTreeNode, table: inout InternTable<StackFrame>) {
        frames.append(node.frame.map { table.index(of: $0) } ?? Self.noFrame)
        counts.append(node.count)
        childCounts.append(UInt32(node.children.count))
        for child in node.children { append(child, table: &table) }
    }

    func tree(frames table: InternTable<StackFrame>) -> CallTreeNode {
        var next = 0
        return node(at: &next, table: table)
    }

    private func node(at next: inout Int, table: InternTable<StackFrame>) -> CallTreeNode {
        let index = next
        next += 1
        let children = (0..<Int(childCounts[index])).map { _ in node(at: &next, table: table) }
        let frame = frames[index] == Self.noFrame ? nil : table[frames[index]]
        return CallTreeNode(frame: frame, count: counts[index], children: children)
    }

    func reindexed(_ newIndex: (UInt32) -> UInt32) -> PackedCallTree {
        var packed = self
        packed.frames = frames.map { $0 == Self.noFrame ? $0 : newIndex($0) }
        return packed
    }
}

/// A list of thread states ("R", "S", "D", … one per sample) as runs of one state: a blocked
/// thread is "S" for its whole stall, a busy one mostly "R". Each run is one `UInt32`, the state's
/// index among the distinct states in the top 8 bits and the run's length in the low 24.
private struct PackedStates {
    private static let lengthBits: UInt32 = 24
    private static let maxLength: UInt32 = (1 << lengthBits) - 1

    private var names: [String] = []
    private var runs: [UInt32] = []
    /// The states as given, when they have more than 256 distinct values (they never have).
    private var unpacked: [String]?

    init(_ states: [String]) {
        var runs: [UInt32] = []
        var index: UInt32 = 0
        var length: UInt32 = 0
        for state in states {
            let stateIndex: UInt32
            if let known = names.firstIndex(of: state) {
                stateIndex = UInt32(known)
            } else if names.count <= Int(UInt8.max) {
                stateIndex = UInt32(names.count)
                names.append(state)
            } else {
                names = []
                unpacked = states
                return
            }
            if length > 0, stateIndex == index, length < Self.maxLength {
                length += 1
            } else {
                if length > 0 { runs.append(index << Self.lengthBits | length) }
                index = stateIndex
                length = 1
            }
        }
        if length > 0 { runs.append(index << Self.lengthBits | length) }
        self.runs = runs
    }

    var states: [String] {
        if let unpacked { return unpacked }
        var states: [String] = []
        for run in runs {
            let name = names[Int(run >> Self.lengthBits)]
            states.append(contentsOf: repeatElement(name, count: Int(run & Self.maxLength)))
        }
        return states
    }
}
