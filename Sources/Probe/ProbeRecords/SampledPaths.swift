/// A frame as a profile viewer shows it: the function's name and, when known, where it is.
/// Two frames with the same name and place are the same frame in a profile.
public struct ProfileFrame: Hashable, Sendable {
    public var name: String
    public var file: String?
    public var line: Int?
    /// The recorded frame itself (module, address, build ID), kept only for a format that places
    /// frames at addresses (pprof's locations): then the same function at two addresses, or in
    /// two modules, is two frames.
    public var origin: StackFrame?

    /// Named as Probe merged it in the call tree (`StackFrame.functionName`).
    public init(_ frame: StackFrame, keepingOrigin: Bool = false) {
        name = frame.functionName
        file = frame.file
        line = frame.line
        origin = keepingOrigin ? frame : nil
    }

    /// A frame that is not a function: a label (`[stall 3 …]`) or a stand-in (`[no frames]`).
    public init(label: String) {
        name = label
    }
}

/// Call trees turned back into what was sampled: the distinct root-to-leaf paths, each with the
/// number of samples whose stack was exactly that path (a node's count less its children's).
/// This is the form flame-graph tools read: the folded format's lines, speedscope's samples.
/// Paths hold indices into `frames`, so that a frame's name is stored, hashed and printed once
/// however many of the (hundreds of) paths pass through it.
public struct SampledPaths {
    /// Every frame of the paths, once.
    public private(set) var frames: [ProfileFrame] = []
    /// Indices into `frames`, root first.
    public private(set) var paths: [[Int]] = []
    /// Samples per path, at the same index; every weight is at least 1.
    public private(set) var weights: [Int] = []
    private var frameIndices: [ProfileFrame: Int] = [:]
    private var pathIndices: [[Int]: Int] = [:]
    /// Frames keep their recorded origin (see `ProfileFrame.origin`).
    private let keepsOrigins: Bool

    public var total: Int { weights.reduce(0, +) }

    public init(keepingOrigins: Bool = false) {
        keepsOrigins = keepingOrigins
    }

    /// Adds a call tree's paths, each led by `prefix`. Paths already present (from another tree)
    /// gain weight; new ones are appended in the tree's order, heaviest child first.
    public mutating func add(_ tree: CallTreeNode, under prefix: [ProfileFrame] = []) {
        var path: [Int] = []
        for frame in prefix { path.append(index(of: frame)) }
        visit(tree, path: &path, prefixLength: prefix.count)
    }

    private mutating func visit(_ node: CallTreeNode, path: inout [Int], prefixLength: Int) {
        // The aggregation's own root has no frame: its children are the outermost frames.
        if let frame = node.frame { path.append(index(of: ProfileFrame(frame, keepingOrigin: keepsOrigins))) }
        let selfCount = node.count - node.children.reduce(0) { $0 + $1.count }
        if selfCount > 0 {
            // Samples that stopped at the frameless root had no frame at all; keep them counted.
            add(
                path.count > prefixLength ? path : path + [index(of: ProfileFrame(label: "[no frames]"))],
                weight: selfCount)
        }
        for child in node.children { visit(child, path: &path, prefixLength: prefixLength) }
        if node.frame != nil { path.removeLast() }
    }

    private mutating func index(of frame: ProfileFrame) -> Int {
        if let index = frameIndices[frame] { return index }
        frameIndices[frame] = frames.count
        frames.append(frame)
        return frames.count - 1
    }

    private mutating func add(_ path: [Int], weight: Int) {
        if let index = pathIndices[path] {
            weights[index] += weight
        } else {
            pathIndices[path] = paths.count
            paths.append(path)
            weights.append(weight)
        }
    }
}
