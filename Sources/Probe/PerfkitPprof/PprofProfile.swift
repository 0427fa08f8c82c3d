import Foundation

/// A profile in pprof's format: the `Profile` message of google/pprof's `proto/profile.proto`
/// (package perftools.profiles), with strings in place; ``encoded()`` turns it into the wire
/// form, every string once in the string table (index 0 the empty string) and referred to by
/// index. pprof wants the encoded profile gzipped on disk (``Gzip``).
public struct PprofProfile {
    /// What a sample's value at the same index measures: `samples`/`count`, `wall`/`nanoseconds`.
    public struct ValueType: Equatable, Sendable {
        public var type: String
        public var unit: String

        public init(type: String, unit: String) {
            self.type = type
            self.unit = unit
        }
    }

    /// A key with a text or a number (in `unit`, if given) attached to a sample.
    public struct Label: Equatable, Sendable {
        public enum Value: Equatable, Sendable {
            case string(String)
            case number(Int64, unit: String?)
        }

        public var key: String
        public var value: Value

        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// A stack and its values, one per sample type.
    public struct Sample: Sendable {
        /// Location ids, the leaf (innermost frame) first.
        public var locationIDs: [UInt64]
        public var values: [Int64]
        public var labels: [Label]

        public init(locationIDs: [UInt64], values: [Int64], labels: [Label] = []) {
            self.locationIDs = locationIDs
            self.values = values
            self.labels = labels
        }
    }

    /// A module (executable, shared library, `[vdso]`) mapped into the address space.
    public struct Mapping: Sendable {
        /// Nonzero, unique.
        public var id: UInt64
        public var memoryStart: UInt64
        public var memoryLimit: UInt64
        public var fileOffset: UInt64
        public var filename: String
        public var buildID: String?
        public var hasFunctions: Bool
        public var hasFilenames: Bool
        public var hasLineNumbers: Bool

        public init(
            id: UInt64, memoryStart: UInt64, memoryLimit: UInt64, fileOffset: UInt64 = 0, filename: String,
            buildID: String?, hasFunctions: Bool, hasFilenames: Bool = false, hasLineNumbers: Bool = false
        ) {
            self.id = id
            self.memoryStart = memoryStart
            self.memoryLimit = memoryLimit
            self.fileOffset = fileOffset
            self.filename = filename
            self.buildID = buildID
            self.hasFunctions = hasFunctions
            self.hasFilenames = hasFilenames
            self.hasLineNumbers = hasLineNumbers
        }
    }

    /// A function and, where known, the source file it is in.
    public struct Function: Sendable {
        /// Nonzero, unique.
        public var id: UInt64
        /// Human-readable (demangled).
        public var name: String
        /// As the system names it (mangled); nil when not known. pprof takes a function whose
        /// system name equals its name for one it may simplify (from a name with `->`, `<…>` or
        /// `::` it drops every `(…)` and `<…>`), so a demangled name goes in `name` alone.
        public var systemName: String?
        public var filename: String?
        /// The function's first line; 0 when unknown.
        public var startLine: Int64

        public init(id: UInt64, name: String, systemName: String?, filename: String? = nil, startLine: Int64 = 0) {
            self.id = id
            self.name = name
            self.systemName = systemName
            self.filename = filename
            self.startLine = startLine
        }
    }

    /// A function and line a location is at (0: line unknown).
    public struct Line: Sendable {
        public var functionID: UInt64
        public var line: Int64

        public init(functionID: UInt64, line: Int64 = 0) {
            self.functionID = functionID
            self.line = line
        }
    }

    /// An instruction address and what is there: one line per function, the innermost inlined
    /// one first.
    public struct Location: Sendable {
        /// Nonzero, unique.
        public var id: UInt64
        /// 0 when the address is in no known module.
        public var mappingID: UInt64
        public var address: UInt64
        public var lines: [Line]

        public init(id: UInt64, mappingID: UInt64, address: UInt64, lines: [Line]) {
            self.id = id
            self.mappingID = mappingID
            self.address = address
            self.lines = lines
        }
    }

    public var sampleTypes: [ValueType]
    public var samples: [Sample] = []
    public var mappings: [Mapping] = []
    public var locations: [Location] = []
    public var functions: [Function] = []
    /// When collection started, in nanoseconds since 1970 (0: not said).
    public var timeNanos: Int64 = 0
    public var durationNanos: Int64 = 0
    /// What the period counts, e.g. `wall`/`nanoseconds`, and how many between two samples.
    public var periodType: ValueType?
    public var period: Int64 = 0
    /// Free text shown by `pprof -comments`.
    public var comments: [String] = []
    /// The sample type readers show unless told otherwise (one of `sampleTypes`' `type`).
    public var defaultSampleType: String?

    public init(sampleTypes: [ValueType]) {
        self.sampleTypes = sampleTypes
    }

    /// The `Profile` message's bytes (not yet gzipped), fields in profile.proto's order.
    public func encoded() -> Data {
        var strings = StringTable()
        var head = ProtobufWriter()
        for type in sampleTypes {
            head.message(1) { Self.write(type, to: &$0, strings: &strings) }  // sample_type
        }
        for sample in samples {
            head.message(2) { writer in  // sample
                writer.packed(1, sample.locationIDs)  // location_id
                writer.packed(2, sample.values)  // value
                for label in sample.labels {
                    writer.message(3) { writer in  // label
                        writer.int64(1, strings.index(label.key))  // key
                        switch label.value {
                        case .string(let text):
                            writer.int64(2, strings.index(text))  // str
                        case .number(let number, let unit):
                            writer.int64(3, number)  // num
                            if let unit { writer.int64(4, strings.index(unit)) }  // num_unit
                        }
                    }
                }
            }
        }
        for mapping in mappings {
            head.message(3) { writer in  // mapping
                writer.uint64(1, mapping.id)
                writer.uint64(2, mapping.memoryStart)
                writer.uint64(3, mapping.memoryLimit)
                writer.uint64(4, mapping.fileOffset)
                writer.int64(5, strings.index(mapping.filename))
                writer.int64(6, strings.index(mapping.buildID ?? ""))
                writer.bool(7, mapping.hasFunctions)
                writer.bool(8, mapping.hasFilenames)
                writer.bool(9, mapping.hasLineNumbers)
            }
        }
        for location in locations {
            head.message(4) { writer in  // location
                writer.uint64(1, location.id)
                writer.uint64(2, location.mappingID)
                writer.uint64(3, location.address)
                for line in location.lines {
                    writer.message(4) { writer in  // line
                        writer.uint64(1, line.functionID)
                        writer.int64(2, line.line)
                    }
                }
            }
        }
        for function in functions {
            head.message(5) { writer in  // function
                writer.uint64(1, function.id)
                writer.int64(2, strings.index(function.name))
                writer.int64(3, strings.index(function.systemName ?? ""))
                writer.int64(4, strings.index(function.filename ?? ""))
                writer.int64(5, function.startLine)
            }
        }

        var tail = ProtobufWriter()
        tail.int64(9, timeNanos)  // time_nanos
        tail.int64(10, durationNanos)  // duration_nanos
        if let periodType {
            tail.message(11) { Self.write(periodType, to: &$0, strings: &strings) }  // period_type
        }
        tail.int64(12, period)  // period
        for comment in comments { tail.int64(13, strings.index(comment)) }  // comment (unpacked, as pprof writes it)
        if let defaultSampleType { tail.int64(14, strings.index(defaultSampleType)) }  // default_sample_type

        var table = ProtobufWriter()
        for string in strings.strings { table.string(6, string) }  // string_table
        return Data(head.bytes + table.bytes + tail.bytes)
    }

    private static func write(_ type: ValueType, to writer: inout ProtobufWriter, strings: inout StringTable) {
        writer.int64(1, strings.index(type.type))
        writer.int64(2, strings.index(type.unit))
    }
}

/// Every string once, in the order first asked for, the empty string at index 0.
private struct StringTable {
    private(set) var strings: [String] = [""]
    private var indices: [String: Int64] = ["": 0]

    mutating func index(_ string: String) -> Int64 {
        if let index = indices[string] { return index }
        let index = Int64(strings.count)
        indices[string] = index
        strings.append(string)
        return index
    }
}
