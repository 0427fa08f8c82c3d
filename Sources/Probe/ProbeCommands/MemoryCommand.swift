import ArgumentParser
import Foundation
import PerfkitGzip
import PerfkitMain
import PerfkitPprof

package struct MemoryCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Print what held the memory in a heap profile: its top Swift types and allocating functions.",
        discussion: """
            Reads a heap profile: one ProbeHeap served (`curl -o heap.pb.gz …/debug/pprof/heap`), \
            or one a memory watch wrote at a near-limit warning (MemoryWatchConfiguration's \
            heapProfileDirectory; give the directory and the newest is read). After an OOM kill, the \
            next instance's previous-exit record names the last profile the killed one wrote. Values \
            are the profile's estimates (sampled allocations scaled up, as Go's); the allocating \
            function is the first of the program's own frames, its callers after it.
            """
    )

    @Argument(help: "A heap profile (.pb.gz or .pb), or a directory of them (the newest heap-*.pb.gz is read).")
    var path: String

    @Option(help: "How many types and functions to print.")
    var top = 10

    @Option(
        name: .customLong("sample-index"),
        help: "What to rank by: inuse_space (default), inuse_objects, alloc_space or alloc_objects.")
    var sampleIndex = "inuse_space"

    package init() {}

    package func validate() throws {
        if top < 1 { throw ValidationError("--top must be at least 1 (got \(top))") }
    }

    package func run() throws {
        let file = try Self.profileFile(path)
        let profile = try Self.read(file)
        guard let index = profile.sampleTypes.firstIndex(where: { $0.type == sampleIndex }) else {
            let known = profile.sampleTypes.map(\.type).joined(separator: ", ")
            throw PerfkitError(.invalidInput, "\(file): no sample type \(sampleIndex) (it has \(known))")
        }
        print(HeapSummary(profile: profile, valueIndex: index).text(file: file, top: top), terminator: "")
    }

    /// `path` itself, or the newest `heap-*.pb.gz` in it when it is a directory.
    static func profileFile(_ path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PerfkitError(.invalidInput, "\(path): no such file or directory")
        }
        guard isDirectory.boolValue else { return path }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let newest = names.filter { $0.hasPrefix("heap-") && $0.hasSuffix(".pb.gz") }.compactMap { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
            return (attributes?[.modificationDate] as? Date).map { (name, $0) }
        }.max { $0.1 < $1.1 }
        guard let newest else { throw PerfkitError(.invalidInput, "\(path): no heap-*.pb.gz file in this directory") }
        return path + "/" + newest.0
    }

    static func read(_ file: String) throws -> PprofProfile {
        guard var data = FileManager.default.contents(atPath: file) else {
            throw PerfkitError(.invalidInput, "\(file): cannot be read")
        }
        if data.starts(with: [0x1F, 0x8B]) {
            do { data = try Gzip.decompress(data, limit: 1 << 30) } catch {
                throw PerfkitError(.invalidInput, "\(file): \(error)")
            }
        }
        do { return try PprofProfile(decoding: data) } catch {
            throw PerfkitError(.invalidInput, "\(file): \(error)")
        }
    }
}

/// A heap profile's top types and allocating functions, worded: measurement (the profile) and
/// wording apart.
struct HeapSummary {
    let profile: PprofProfile
    let valueIndex: Int

    struct Row: Equatable {
        var value: Int64
        var name: String
    }

    var total: Int64 { profile.samples.reduce(0) { $0 + value(of: $1) } }

    private func value(of sample: PprofProfile.Sample) -> Int64 {
        valueIndex < sample.values.count ? sample.values[valueIndex] : 0
    }

    /// By the `type` label (`(not a Swift object)` without one), largest first.
    func types() -> [Row] {
        var sums: [String: Int64] = [:]
        for sample in profile.samples {
            let type = sample.labels.first { $0.key == "type" }.flatMap { label -> String? in
                if case .string(let text) = label.value { return text }
                return nil
            }
            sums[type ?? "(not a Swift object)", default: 0] += value(of: sample)
        }
        return Self.ranked(sums)
    }

    /// By allocating function and its first two callers, largest first.
    func sites() -> [Row] {
        var sums: [String: Int64] = [:]
        for sample in profile.samples {
            let names = profile.functionNames(of: sample).prefix(3).map(Self.short)
            sums[names.joined(separator: " ← "), default: 0] += value(of: sample)
        }
        return Self.ranked(sums)
    }

    private static func ranked(_ sums: [String: Int64]) -> [Row] {
        sums.filter { $0.value > 0 }.map { Row(value: $0.value, name: $0.key) }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.name < $1.name }
    }

    /// `Module.Type.method(label:) -> Result` → `Module.Type.method(label:)`, at most 90 characters.
    static func short(_ name: String) -> String {
        var text = name
        if let arrow = text.range(of: " -> ") { text = String(text[..<arrow.lowerBound]) }
        return text.count > 90 ? String(text.prefix(89)) + "…" : text
    }

    func amount(_ value: Int64) -> String {
        let unit = profile.sampleTypes[valueIndex].unit
        guard unit == "bytes" else { return "\(value)" }
        let bytes = Double(value)
        if bytes >= 1e9 { return String(format: "%.2f GB", bytes / 1e9) }
        if bytes >= 1e6 { return String(format: "%.1f MB", bytes / 1e6) }
        if bytes >= 1e3 { return String(format: "%.1f kB", bytes / 1e3) }
        return "\(value) B"
    }

    func text(file: String, top: Int) -> String {
        let type = profile.sampleTypes[valueIndex].type
        let total = total
        var text = "\(file): \(amount(total)) \(type) (estimated)"
        if profile.timeNanos > 0 {
            let date = Date(timeIntervalSince1970: Double(profile.timeNanos) / 1e9)
            text += ", taken \(ISO8601DateFormatter().string(from: date))"
        }
        text += "\n"
        for comment in profile.comments { text += "  # \(comment)\n" }
        func section(_ title: String, _ rows: [Row]) {
            text += "\n\(title):\n"
            if rows.isEmpty { text += "  (nothing)\n" }
            for row in rows.prefix(top) {
                let share = total > 0 ? Double(row.value) / Double(total) * 100 : 0
                let figure = amount(row.value)
                let padded = String(repeating: " ", count: max(0, 10 - figure.count)) + figure
                text += "  \(padded)  " + String(format: "%5.1f%%", share) + "  \(row.name)\n"
            }
            if rows.count > top { text += "  … \(rows.count - top) more\n" }
        }
        section("By Swift type (\(type))", types())
        section("By allocating function ← its callers (\(type))", sites())
        return text
    }
}
