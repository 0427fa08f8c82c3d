/// Protocol Buffers' wire format (https://protobuf.dev/programming-guides/encoding/), the part a
/// proto3 message of integers, strings and nested messages needs: varints, length-delimited
/// fields and packed repeated integers. Enough for pprof's profile.proto without a dependency.
///
/// Scalar fields at their default (0, false) are not written, as proto3 encoders do; strings,
/// nested messages and packed lists are written whenever they are called for (a repeated string
/// field's empty string is an element).
public struct ProtobufWriter {
    /// How a field's value is laid out after its tag.
    public enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    /// What has been written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Seven bits a byte, least significant first; the high bit says another byte follows.
    public mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A field's key: its number and wire type, as one varint.
    public mutating func tag(_ field: Int, _ wireType: WireType) {
        precondition(field >= 1 && field < 1 << 29, "protobuf field numbers are 1 to 2^29-1")
        varint(UInt64(field) << 3 | wireType.rawValue)
    }

    public mutating func uint64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// int64 (not sint64): a negative value is its two's complement, ten bytes long.
    public mutating func int64(_ field: Int, _ value: Int64) {
        uint64(field, UInt64(bitPattern: value))
    }

    public mutating func bool(_ field: Int, _ value: Bool) {
        uint64(field, value ? 1 : 0)
    }

    /// A length-delimited field: tag, byte count, bytes.
    public mutating func bytes(_ field: Int, _ value: some Collection<UInt8>) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    public mutating func string(_ field: Int, _ value: String) {
        bytes(field, value.utf8)
    }

    /// A nested message, written by `body` into a writer of its own and then embedded.
    public mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var nested = ProtobufWriter()
        body(&nested)
        bytes(field, nested.bytes)
    }

    /// A packed repeated field: one length-delimited field holding every value's varint. Nothing
    /// is written for an empty list.
    public mutating func packed(_ field: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var nested = ProtobufWriter()
        for value in values { nested.varint(value) }
        bytes(field, nested.bytes)
    }

    public mutating func packed(_ field: Int, _ values: [Int64]) {
        packed(field, values.map { UInt64(bitPattern: $0) })
    }
}
