import Foundation
import ProbeRecords
import Testing

/// The stall record's JSON is read by other programs (collectors of `stalls.jsonl`, the report's
/// `stalls`, `Schema/report.schema.json`): its keys and values are pinned here, byte for byte.
@Suite struct StallRecordCodingTests {
    static let frame = StackFrame(
        address: 0x1234, symbol: "MyServer.handle(request:)", symbolOffset: 16, module: "/srv/bin/MyServer",
        buildID: "ab12", moduleOffset: 0x234, file: "/src/main.swift", line: 7)

    static let record = StallRecord(
        watchdog: "main", threadID: 42, start: Date(timeIntervalSince1970: 1_764_090_062), durationNanoseconds: 4.5e8,
        ongoing: false, thresholdNanoseconds: 1e8, threadCPUNanoseconds: 4.4e8, classification: .cpuBound,
        threadStates: ["R", "R"], sampleCount: 2, unansweredSamples: 0,
        callTree: CallTreeNode(frame: nil, count: 2, children: [CallTreeNode(frame: frame, count: 2, children: [])]),
        topStack: [frame], groupKey: "MyServer.handle(request:)",
        threads: [
            ThreadStack(
                threadID: 43, name: "pool-1", threadStates: ["S"], sampleCount: 1, unansweredSamples: 1, topStack: [])
        ],
        sampledNanoseconds: 1e6, waitingIn: "futex")

    /// Encoded as Probe's JSON-lines outlet does (sorted keys, unescaped slashes, ISO 8601 dates).
    static func encoded(_ record: StallRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    @Test func jsonIsPinned() throws {
        let frame =
            #"{"address":4660,"buildID":"ab12","file":"/src/main.swift","line":7,"module":"/srv/bin/MyServer","#
            + #""moduleOffset":564,"symbol":"MyServer.handle(request:)","symbolOffset":16}"#
        let expected =
            #"{"callTree":{"children":[{"children":[],"count":2,"frame":"# + frame + #"}],"count":2},"#
            + #""classification":"cpu-bound","durationNanoseconds":450000000,"groupKey":"MyServer.handle(request:)","#
            + #""ongoing":false,"sampleCount":2,"sampledNanoseconds":1000000,"start":"2025-11-25T17:01:02Z","#
            + #""threadCPUNanoseconds":440000000,"threadID":42,"threadStates":["R","R"],"#
            + #""threads":[{"name":"pool-1","sampleCount":1,"threadID":43,"threadStates":["S"],"topStack":[],"#
            + #""unansweredSamples":1}],"thresholdNanoseconds":100000000,"topStack":["# + frame + "],"
            + #""unansweredSamples":0,"waitingIn":"futex","watchdog":"main"}"#
        #expect(try Self.encoded(Self.record) == expected)
    }

    @Test func aLineDecodesWithISO8601Dates() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(StallRecord.self, from: Data(try Self.encoded(Self.record).utf8))
        #expect(decoded == Self.record)
    }

    @Test func absentOptionalsAreLeftOut() throws {
        let record = StallRecord(
            watchdog: "loop", threadID: 1, start: Date(timeIntervalSince1970: 0), durationNanoseconds: 1,
            ongoing: true, thresholdNanoseconds: 1, threadCPUNanoseconds: nil, classification: .unknown,
            threadStates: [], sampleCount: 0, unansweredSamples: 0, callTree: nil, topStack: [], groupKey: "")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.encoded(record).utf8)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "classification", "durationNanoseconds", "groupKey", "ongoing", "sampleCount", "start", "threadID",
                "threadStates", "thresholdNanoseconds", "topStack", "unansweredSamples", "watchdog",
            ])
    }
}
