import Foundation
import ProbeRecords
import Testing

@testable import Probe

/// Records are written by ``JSONLineEncoder``, in blocks malloc never maps; readers and files
/// written before expect what `JSONEncoder` made: the same bytes.
struct JSONLineEncoderTests {
    static func foundationJSON(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }

    static func lineJSON(_ value: some Encodable) throws -> [UInt8] {
        let bytes = try JSONLineEncoder.encode(value)
        let joined = bytes.regions.flatMap { Array($0) }
        #expect(joined.count == bytes.count)
        return joined
    }

    struct Scalars: Encodable {
        var doubles: [Double] = [
            1, 0.1, 1e-7, 123_456_789.123, 1e20, 1e16, 2.5e15, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        var floats: [Float] = [1, 0.1, 3.4e38]
        var integers: [Int64] = [0, -1, .min, .max]
        var unsigned: UInt64 = .max
        var small: Int8 = -5
        var text = "a\"b\\c/d\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é 😀 ends"
        var date = Date(timeIntervalSince1970: 1_234_567_890.5)
        var absent: Int? = nil
        var present: Int? = 3
        var flags = [true, false]
        var empty: [String] = []
        var emptyObject: [String: Int] = [:]
        var byNumber = [3: "x", 10: "y"]
        var nested = [[1, 2], [], [3]]
    }

    /// Keys sorted by their UTF-8 bytes, as `.sortedKeys` does (not numerically, not ignoring case).
    struct Keys: Encodable {
        var a10 = 1, a9 = 2, B = 3, a = 4, aB = 5, ab = 6, _x = 7, Z = 8, é = 9
    }

    /// What hand-written `encode(to:)` methods do: nested containers, explicit nils, a key encoded
    /// twice, super encoders.
    struct HandWritten: Encodable {
        enum Key: String, CodingKey { case first, second, list, inner }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(1, forKey: .first)
            try container.encode(2, forKey: .first)
            try container.encodeNil(forKey: .second)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode("one")
            try list.encodeNil()
            var inList = list.nestedContainer(keyedBy: Key.self)
            try inList.encode(true, forKey: .inner)
            try Date(timeIntervalSince1970: 0).encode(to: list.superEncoder())
            var inner = container.nestedContainer(keyedBy: Key.self, forKey: .inner)
            try inner.encode([0.5], forKey: .list)
            try "parent".encode(to: container.superEncoder())
        }
    }

    @Test func scalarsKeysAndContainersComeOutAsJSONEncoderWritesThem() throws {
        #expect(try Self.lineJSON(Scalars()) == Self.foundationJSON(Scalars()))
        #expect(try Self.lineJSON(Keys()) == Self.foundationJSON(Keys()))
        #expect(try Self.lineJSON(HandWritten()) == Self.foundationJSON(HandWritten()))
        #expect(try Self.lineJSON([String]()) == Self.foundationJSON([String]()))
    }

    @Test func aValueJSONCannotHoldIsAnError() {
        #expect(throws: EncodingError.self) { try JSONLineEncoder.encode([1, Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONLineEncoder.encode(["x": Float.infinity]) }
    }

    /// A stall record of over 300 KB, across many blocks: a deep call tree, long names, thread stacks.
    @Test func aLargeStallRecordComesOutByteForByte() throws {
        func frame(_ index: Int) -> StackFrame {
            StackFrame(
                address: 0x5555_0000 + UInt64(index) * 16, symbol: "Module.Type.function\(index)(_:) async throws -> é",
                symbolOffset: UInt64(index % 7), module: "/srv/app/bin/service",
                buildID: "0123456789abcdef0123456789abcdef01234567", moduleOffset: UInt64(index) * 16)
        }
        var root = CallTreeNode(frame: nil, count: 0, children: [])
        for branch in 0..<12 {
            var node: CallTreeNode? = nil
            for depth in 0..<120 {
                node = CallTreeNode(frame: frame(branch * 1_000 + depth), count: 3, children: node.map { [$0] } ?? [])
            }
            root.children.append(node!)
            root.count += 3
        }
        let threads = (0..<40).map { index in
            ThreadStack(
                threadID: Int32(100 + index), name: index.isMultiple(of: 2) ? "pool-\(index)" : nil,
                threadStates: ["S", "R"], sampleCount: 2, unansweredSamples: 0, topStack: (0..<30).map(frame))
        }
        let record = StallRecord(
            watchdog: "event-loop-0", threadID: 42, start: Date(timeIntervalSince1970: 1_790_000_000.25),
            durationNanoseconds: 2.5e8, ongoing: false, thresholdNanoseconds: 1e8, threadCPUNanoseconds: 2.4e8,
            classification: .cpuBound, threadStates: ["R", "S", "D"], sampleCount: 36, unansweredSamples: 1,
            callTree: root, topStack: (0..<60).map(frame), groupKey: "Module.Type.function0(_:)", threads: threads)
        let expected = try Self.foundationJSON(record)
        #expect(expected.count > 300_000)
        #expect(try Self.lineJSON(record) == expected)
    }

    /// One line a record, whole, read back equal.
    @Test func appendWritesTheRecordAsOneLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(getpid())-lines.jsonl").path
        defer { unlink(path) }
        let values: [Int] = (0..<50_000).map { $0 &* 7_919 }
        #expect(JSONLines.append(values, to: path) == nil)
        #expect(JSONLines.append([1, 2], to: path) == nil)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        #expect(try JSONDecoder().decode([Int].self, from: Data(lines[0].utf8)) == values)
        #expect(lines[1] == "[1,2]")
    }
}
