import Foundation

extension PprofProfile {
    /// Why bytes are not a profile: where the reading stopped and what was wrong there.
    public struct DecodingError: Error, CustomStringConvertible, Sendable {
        public var offset: Int
        public var problem: String
        public var description: String { "not a pprof profile: \(problem) at byte \(offset)" }
    }

    /// Reads an encoded (not gzipped) profile: sample types, samples with their labels, locations,
    /// functions, comments, period and the default sample type; mappings are read without their
    /// build IDs' meaning checked. Unknown fields are skipped, as protobuf readers do.
    public init(decoding data: Data) throws {
        var strings: [String] = []
        var sampleTypes: [(Int64, Int64)] = []
        var samples: [(locations: [UInt64], values: [Int64], labels: [(Int64, Int64, Int64, Int64)])] = []
        var locations: [Location] = []
        var functions: [(id: UInt64, name: Int64, system: Int64, file: Int64, start: Int64)] = []
        var comments: [Int64] = []
        var periodType: (Int64, Int64)?
        var period: Int64 = 0
        var defaultType: Int64 = 0
        var timeNanos: Int64 = 0
        var durationNanos: Int64 = 0
        var reader = ProtobufReader(bytes: [UInt8](data))
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .bytes(let bytes)): sampleTypes.append(try Self.valueType(bytes))
            case (2, .bytes(let bytes)):
                var sample: (locations: [UInt64], values: [Int64], labels: [(Int64, Int64, Int64, Int64)]) = (
                    [], [], []
                )
                var inner = ProtobufReader(bytes: bytes)
                while let (field, value) = try inner.next() {
                    switch (field, value) {
                    case (1, _): sample.locations += try value.unsignedValues()
                    case (2, _): sample.values += try value.unsignedValues().map { Int64(bitPattern: $0) }
                    case (3, .bytes(let label)):
                        var key: Int64 = 0
                        var text: Int64 = 0
                        var number: Int64 = 0
                        var unit: Int64 = 0
                        var labelReader = ProtobufReader(bytes: label)
                        while let (field, value) = try labelReader.next() {
                            guard case .varint(let v) = value else { continue }
                            switch field {
                            case 1: key = Int64(bitPattern: v)
                            case 2: text = Int64(bitPattern: v)
                            case 3: number = Int64(bitPattern: v)
                            case 4: unit = Int64(bitPattern: v)
                            default: break
                            }
                        }
                        sample.labels.append((key, text, number, unit))
                    default: break
                    }
                }
                samples.append(sample)
            case (4, .bytes(let bytes)):
                var location = Location(id: 0, mappingID: 0, address: 0, lines: [])
                var inner = ProtobufReader(bytes: bytes)
                while let (field, value) = try inner.next() {
                    switch (field, value) {
                    case (1, .varint(let v)): location.id = v
                    case (2, .varint(let v)): location.mappingID = v
                    case (3, .varint(let v)): location.address = v
                    case (4, .bytes(let line)):
                        var entry = Line(functionID: 0)
                        var lineReader = ProtobufReader(bytes: line)
                        while let (field, value) = try lineReader.next() {
                            guard case .varint(let v) = value else { continue }
                            if field == 1 { entry.functionID = v }
                            if field == 2 { entry.line = Int64(bitPattern: v) }
                        }
                        location.lines.append(entry)
                    default: break
                    }
                }
                locations.append(location)
            case (5, .bytes(let bytes)):
                var function: (id: UInt64, name: Int64, system: Int64, file: Int64, start: Int64) = (0, 0, 0, 0, 0)
                var inner = ProtobufReader(bytes: bytes)
                while let (field, value) = try inner.next() {
                    guard case .varint(let v) = value else { continue }
                    switch field {
                    case 1: function.id = v
                    case 2: function.name = Int64(bitPattern: v)
                    case 3: function.system = Int64(bitPattern: v)
                    case 4: function.file = Int64(bitPattern: v)
                    case 5: function.start = Int64(bitPattern: v)
                    default: break
                    }
                }
                functions.append(function)
            case (6, .bytes(let bytes)): strings.append(String(decoding: bytes, as: UTF8.self))
            case (9, .varint(let v)): timeNanos = Int64(bitPattern: v)
            case (10, .varint(let v)): durationNanos = Int64(bitPattern: v)
            case (11, .bytes(let bytes)): periodType = try Self.valueType(bytes)
            case (12, .varint(let v)): period = Int64(bitPattern: v)
            case (13, _): comments += try value.unsignedValues().map { Int64(bitPattern: $0) }
            case (14, .varint(let v)): defaultType = Int64(bitPattern: v)
            default: break
            }
        }
        func string(_ index: Int64) throws -> String {
            guard index >= 0, Int(index) < strings.count else {
                throw DecodingError(
                    offset: data.count, problem: "string index \(index) beyond the table's \(strings.count)")
            }
            return strings[Int(index)]
        }
        guard strings.first == "" else {
            throw DecodingError(offset: 0, problem: "the string table does not begin with the empty string")
        }
        self.init(sampleTypes: try sampleTypes.map { ValueType(type: try string($0.0), unit: try string($0.1)) })
        self.samples = try samples.map { sample in
            Sample(
                locationIDs: sample.locations, values: sample.values,
                labels: try sample.labels.map { key, text, number, unit in
                    Label(
                        key: try string(key),
                        value: text != 0
                            ? .string(try string(text)) : .number(number, unit: unit != 0 ? try string(unit) : nil))
                })
        }
        self.locations = locations
        self.functions = try functions.map {
            Function(
                id: $0.id, name: try string($0.name), systemName: $0.system != 0 ? try string($0.system) : nil,
                filename: $0.file != 0 ? try string($0.file) : nil, startLine: $0.start)
        }
        self.comments = try comments.map(string)
        self.periodType = try periodType.map { ValueType(type: try string($0.0), unit: try string($0.1)) }
        self.period = period
        self.timeNanos = timeNanos
        self.durationNanos = durationNanos
        self.defaultSampleType = defaultType != 0 ? try string(defaultType) : nil
    }

    private static func valueType(_ bytes: [UInt8]) throws -> (Int64, Int64) {
        var type: Int64 = 0
        var unit: Int64 = 0
        var reader = ProtobufReader(bytes: bytes)
        while let (field, value) = try reader.next() {
            guard case .varint(let v) = value else { continue }
            if field == 1 { type = Int64(bitPattern: v) }
            if field == 2 { unit = Int64(bitPattern: v) }
        }
        return (type, unit)
    }

    /// The function names of a sample's stack, leaf first (a location's innermost inlined function first).
    public func functionNames(of sample: Sample) -> [String] {
        let functionsByID = Dictionary(functions.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let locationsByID = Dictionary(locations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return sample.locationIDs.flatMap { id -> [String] in
            guard let location = locationsByID[id] else { return ["?"] }
            if location.lines.isEmpty { return ["0x" + String(location.address, radix: 16)] }
            return location.lines.map { functionsByID[$0.functionID] ?? "?" }
        }
    }
}

/// Protocol buffers' wire format, as much as profile.proto needs: varints and length-delimited
/// fields (fixed-width ones are skipped).
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case bytes([UInt8])
        case skipped

        /// A repeated integer field: one unpacked varint or a packed run.
        func unsignedValues() throws -> [UInt64] {
            switch self {
            case .varint(let v): return [v]
            case .bytes(let bytes):
                var reader = ProtobufReader(bytes: bytes)
                var values: [UInt64] = []
                while reader.offset < bytes.count { values.append(try reader.varint()) }
                return values
            case .skipped: return []
            }
        }
    }

    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else {
                throw PprofProfile.DecodingError(offset: offset, problem: "a varint runs past the end")
            }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { throw PprofProfile.DecodingError(offset: offset, problem: "a varint over 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// The next field's number and value; nil at the end.
    mutating func next() throws -> (Int, Value)? {
        guard offset < bytes.count else { return nil }
        let key = try varint()
        let field = Int(key >> 3)
        switch key & 7 {
        case 0: return (field, .varint(try varint()))
        case 1:
            offset += 8
        case 2:
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else {
                throw PprofProfile.DecodingError(
                    offset: offset, problem: "a field of \(length) bytes runs past the end")
            }
            let value = Array(bytes[offset..<offset + Int(length)])
            offset += Int(length)
            return (field, .bytes(value))
        case 5:
            offset += 4
        default:
            throw PprofProfile.DecodingError(offset: offset, problem: "wire type \(key & 7)")
        }
        guard offset <= bytes.count else {
            throw PprofProfile.DecodingError(offset: offset, problem: "a fixed-width field runs past the end")
        }
        return (field, .skipped)
    }
}
