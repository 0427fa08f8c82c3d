import PerfkitMain
import ArgumentParser
import ELFSymbols
import Foundation
import ProbeRecords

package struct SymbolicateCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "symbolicate",
        abstract: "Add file:line to the stall stacks of a report or a Probe JSON-lines file.",
        discussion: """
            Each frame that names a module and a module offset is looked up with llvm-symbolizer (next to \
            swift) or addr2line, in the module file on this machine. A frame whose module's build ID differs \
            from the one recorded with the stack is not looked up: its lines would belong to another build.
            """
    )

    @Argument(help: "A perfkit report (report.json with \"stalls\") or a Probe stalls .jsonl file.")
    var input: String

    @Option(help: "Write the stalls with file and line filled in here, in the input's format.")
    var output: String?

    @Option(help: "The llvm-symbolizer or addr2line to run (default: llvm-symbolizer next to swift).")
    var symbolizer: String?

    package init() {}

    package func run() throws {
        var warnings: [String] = []
        let document = try StallDocument.load(path: input, warnings: &warnings)
        for warning in warnings { printError("warning: \(warning)\n") }
        let stalls = document.stalls
        if stalls.isEmpty { throw PerfkitError(.invalidInput, "\(input): no stalls to symbolicate") }
        let tool = try OfflineSymbolizer.locate(explicitPath: symbolizer)

        let lookup = try FrameLookup(frames: FrameLookup.frames(of: stalls), symbolizer: tool)
        let updated = stalls.map(lookup.filled)
        for (index, stall) in stalls.enumerated() {
            print(Self.describe(stall, number: index + 1, lookup: lookup))
        }
        if let output {
            let url = URL(fileURLWithPath: output)
            try writeOutput(try document.replacingStalls(updated).encoded(), to: url)
            print("written: \(url.path)")
        }
    }

    static func describe(_ stall: StallRecord, number: Int, lookup: FrameLookup) -> String {
        let milliseconds = Int((stall.durationNanoseconds / 1e6).rounded())
        var lines = [
            "stall \(number): \(stall.watchdog), \(milliseconds) ms, \(stall.classification.rawValue), "
                + "\(stall.sampleCount) samples\(stall.ongoing ? ", ongoing" : "")"
        ]
        for (index, original) in stall.topStack.enumerated() {
            let frame = lookup.filled(original)
            let module = frame.module.map { ($0 as NSString).lastPathComponent } ?? "?"
            let name = frame.symbol ?? "\(module)+0x\(String(frame.moduleOffset ?? frame.address, radix: 16))"
            var line = "  #\(index) \(name)"
            if let file = frame.file { line += " at \(file)" + (frame.line.map { ":\($0)" } ?? "") }
            line += "  [\(module)]"
            if let problem = lookup.problem(for: original) { line += "  (\(problem))" }
            lines.append(line)
            for inlined in lookup.location(for: original)?.inlined ?? [] {
                let place = inlined.file.map { " at \($0)" + (inlined.line.map { ":\($0)" } ?? "") } ?? ""
                lines.append("      inlined: \(inlined.function ?? "?")\(place)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// The outcome of looking up every frame once: a location per frame whose module file is on
/// disk with the recorded build ID, and a reason for every frame that could not be looked up.
struct FrameLookup {
    private enum ModuleState {
        case success(String?)
        case failure(String)
    }

    private var locations: [StackFrame: OfflineSymbolizer.Location] = [:]
    private var problems: [StackFrame: String] = [:]

    init(frames: Set<StackFrame>, symbolizer: OfflineSymbolizer) throws {
        // Module path -> its build ID on disk, or why it cannot be read.
        var modules: [String: ModuleState] = [:]
        var addressesByModule: [String: Set<UInt64>] = [:]
        for frame in frames {
            guard let module = frame.module, let offset = frame.moduleOffset else { continue }
            guard module.hasPrefix("/") else {
                problems[frame] = "\(module) is not a file"
                continue
            }
            if modules[module] == nil {
                do {
                    modules[module] = .success(try ELFImage(path: module).buildID)
                } catch {
                    modules[module] = .failure((error as? ELFImage.ReadError)?.problem ?? "\(error)")
                }
            }
            switch modules[module]! {
            case .failure(let problem):
                problems[frame] = problem
            case .success(let onDisk):
                if let recorded = frame.buildID, recorded != onDisk {
                    problems[frame] =
                        "build ID differs: stack \(recorded.prefix(12)), file on disk \(onDisk.map { String($0.prefix(12)) } ?? "none"); not looked up"
                } else {
                    addressesByModule[module, default: []].insert(offset)
                }
            }
        }
        var found: [String: [UInt64: OfflineSymbolizer.Location]] = [:]
        for (module, addresses) in addressesByModule {
            found[module] = try symbolizer.locate(addresses.sorted(), in: module)
        }
        for frame in frames {
            guard problems[frame] == nil, let module = frame.module, let offset = frame.moduleOffset else { continue }
            if let location = found[module]?[offset] {
                locations[frame] = location
                if location.position.file == nil { problems[frame] = "no line information" }
            } else if found[module] != nil {
                problems[frame] = "no line information"
            }
        }
    }

    func location(for frame: StackFrame) -> OfflineSymbolizer.Location? { locations[frame] }
    func problem(for frame: StackFrame) -> String? { problems[frame] }

    /// The frame with `file`, `line` (and `symbol`, when it had none) from its location.
    func filled(_ frame: StackFrame) -> StackFrame {
        guard let position = locations[frame]?.position else { return frame }
        var frame = frame
        frame.file = position.file ?? frame.file
        frame.line = position.line ?? frame.line
        frame.symbol = frame.symbol ?? position.function
        return frame
    }

    func filled(_ node: CallTreeNode) -> CallTreeNode {
        CallTreeNode(frame: node.frame.map(filled), count: node.count, children: node.children.map(filled))
    }

    /// The stall with its most frequent stacks and call trees filled (its own and its `before`'s).
    func filled(_ stall: StallRecord) -> StallRecord {
        var stall = stall
        stall.topStack = stall.topStack.map(filled)
        stall.callTree = stall.callTree.map(filled)
        if var before = stall.before {
            before.topStack = before.topStack.map(filled)
            before.callTree = before.callTree.map(filled)
            stall.before = before
        }
        return stall
    }

    /// Every frame of the stalls' most frequent stacks and call trees (`before`'s too): what there is
    /// to look up.
    static func frames(of stalls: [StallRecord]) -> Set<StackFrame> {
        var frames = Set<StackFrame>()
        func collect(_ node: CallTreeNode) {
            if let frame = node.frame { frames.insert(frame) }
            node.children.forEach(collect)
        }
        for stall in stalls {
            frames.formUnion(stall.topStack)
            if let tree = stall.callTree { collect(tree) }
            frames.formUnion(stall.before?.topStack ?? [])
            if let tree = stall.before?.callTree { collect(tree) }
        }
        return frames
    }
}
