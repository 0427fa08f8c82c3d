import Foundation
import PerfkitTools

/// Small programs in two versions each (a base and a new one that carries one regression),
/// compiled once per test run with `swiftc -O` into a temporary directory. Module "m", so the
/// mangled names below are stable.
enum CompiledVariants {
    static let sources: [String: String] = [
        "generic": shapes(total: "@inline(never) func total<T: Shape>(_ shapes: [T]) -> Double"),
        "existential": shapes(total: "@inline(never) func total(_ shapes: [any Shape]) -> Double"),
        // The optimizer told not to specialize `total`: `run` calls the generic entry point.
        "unspecialized": shapes(
            total: """
                @_semantics("optimize.sil.specialize.generic.never")
                @inline(never) func total<T: Shape>(_ shapes: [T]) -> Double
                """),
        "loop": counter(body: "result &+= i"),
        // A class reference kept across an opaque call inside the loop: a retain and a release.
        "loopWithReference": counter(
            body: "let box = counter.box; opaque(box); result &+= i &+ box.value",
            extra: "@_optimize(none) func opaque(_ box: Box) {}"),
        "local": global(body: "local &+= i"),
        // An `inout` access to a global in the loop: a dynamic exclusivity check.
        "globalInout": global(
            body: "add(&counter, i); local &+= counter",
            extra: "@inline(never) func add(_ value: inout Int, _ amount: Int) { value &+= amount }"),
        // `reportProgress` in every binary: never called, called, and called with its body inlined.
        "progressUnused": progress(attribute: "@inline(never)", body: "total &+= i &* 3"),
        "progressCalled": progress(attribute: "@inline(never)", body: "total &+= i &* 3; reportProgress(i)"),
        "progressInlined": progress(attribute: "@inline(__always)", body: "total &+= i &* 3; reportProgress(i)"),
    ]

    static let total = "$s1m5totalySdSayxGAA5ShapeRzlF"
    static let totalSpecialized = "$s1m5totalySdSayxGAA5ShapeRzlFAA6SquareV_Tg5"
    static let totalExistential = "$s1m5totalySdSayAA5Shape_pGF"
    static let run = "$s1m3runySdSiF"
    static let sum = "$s1m3sumySiAA7CounterC_SitF"
    static let bump = "$s1m4bumpyS2iF"
    static let drain = "$s1m5drainyS2iF"
    static let reportProgress = "$s1m14reportProgressyySiF"

    /// Paths of the compiled variants by name, or why they could not be built.
    static let built: Result<[String: String], CompileFailure> = build()

    struct CompileFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Why the tests that need compiled code cannot run here; nil when they can.
    static var missingTool: String? {
        if ExternalTool.locateInToolchain("llvm-objdump") == nil { return "llvm-objdump not found" }
        if ExternalTool.locateInToolchain("swiftc") == nil { return "swiftc not found" }
        return nil
    }

    static func path(_ name: String) throws -> String {
        let paths = try built.get()
        guard let path = paths[name] else { throw CompileFailure(message: "no variant \(name)") }
        return path
    }

    /// Compiles each variant into a directory named for the sources and the compiler, reused by
    /// later runs (each binary is written under a temporary name and renamed into place, so runs
    /// in parallel do not see half a file).
    private static func build() -> Result<[String: String], CompileFailure> {
        guard let swiftc = ExternalTool.locateInToolchain("swiftc") else {
            return .failure(CompileFailure(message: "swiftc not found"))
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: swiftc)
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let key = fnv1a(sources.sorted { $0.key < $1.key }.map { $0.key + $0.value }.joined() + swiftc + "\(modified)")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("perfkit-machine-code-\(String(key, radix: 16))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var paths: [String: String] = [:]
            for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
                let binary = directory.appendingPathComponent(name).path
                paths[name] = binary
                if FileManager.default.fileExists(atPath: binary) { continue }
                let scratch = directory.appendingPathComponent("\(name)-\(getpid())")
                let file = scratch.appendingPathExtension("swift")
                try source.write(to: file, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(at: file) }
                _ = try ExternalTool.output(of: swiftc, ["-O", "-module-name", "m", file.path, "-o", scratch.path])
                if rename(scratch.path, binary) != 0 { try? FileManager.default.removeItem(at: scratch) }
            }
            return .success(paths)
        } catch {
            return .failure(CompileFailure(message: "compiling the variants failed: \(error)"))
        }
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    private static func shapes(total: String) -> String {
        """
        protocol Shape { func area() -> Double }
        struct Square: Shape { var side: Double; func area() -> Double { side * side } }
        \(total) {
            var sum = 0.0
            for shape in shapes { sum += shape.area() }
            return sum
        }
        @inline(never) func run(_ n: Int) -> Double { total((0..<n).map { Square(side: Double($0)) }) }
        print(run(CommandLine.arguments.count))
        """
    }

    private static func counter(body: String, extra: String = "") -> String {
        """
        final class Box { var value = 1 }
        final class Counter { var box = Box() }
        \(extra)
        @inline(never) func sum(_ counter: Counter, _ n: Int) -> Int {
            var result = 0
            for i in 0..<n { \(body) }
            return result
        }
        print(sum(Counter(), CommandLine.arguments.count))
        """
    }

    private static func global(body: String, extra: String = "") -> String {
        """
        var counter = 0
        \(extra)
        @inline(never) func bump(_ n: Int) -> Int {
            var local = 0
            for i in 0..<n { \(body) }
            return local
        }
        print(bump(CommandLine.arguments.count))
        """
    }

    private static func progress(attribute: String, body: String) -> String {
        """
        \(attribute) public func reportProgress(_ i: Int) { if i % 1000 == 0 { print("at", i) } }
        @inline(never) func drain(_ n: Int) -> Int {
            var total = 0
            for i in 0..<n { \(body) }
            return total
        }
        print(drain(CommandLine.arguments.count * 100))
        """
    }
}
