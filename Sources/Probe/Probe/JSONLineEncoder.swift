import Foundation

/// Encodes a record to the bytes `JSONEncoder` makes with `[.sortedKeys, .withoutEscapingSlashes]`
/// and ISO 8601 dates (tests compare them), without any block near malloc's mmap threshold: the
/// text is kept in 16 KiB blocks, and arrays in parts of 1,024 values. Through `JSONEncoder`, a stall
/// record of 100 KB made and freed a buffer malloc had mapped, and glibc then raised its threshold for
/// the whole process (docs/probe-in-a-server.md, "Soak": what that costs a service).
package enum JSONLineEncoder {
    package static func encode(_ value: some Encodable) throws -> ChunkedBytes {
        let node = try JSONNode.of(value, codingPath: [])
        let output = ChunkedBytes()
        node.write(to: output)
        return output
    }
}

/// Bytes in blocks of 16 KiB, so that however many there are, no block is one malloc maps.
package final class ChunkedBytes {
    static let blockSize = 16 << 10
    private var blocks: [UnsafeMutableRawPointer] = []
    private var usedInLast = blockSize
    package private(set) var count = 0

    package init() {}

    deinit { for block in blocks { free(block) } }

    package func append(_ byte: UInt8) {
        if usedInLast == Self.blockSize { addBlock() }
        blocks[blocks.count - 1].storeBytes(of: byte, toByteOffset: usedInLast, as: UInt8.self)
        usedInLast += 1
        count += 1
    }

    package func append(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if usedInLast == Self.blockSize { addBlock() }
            let n = min(bytes.count - offset, Self.blockSize - usedInLast)
            (blocks[blocks.count - 1] + usedInLast).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            usedInLast += n
            count += n
            offset += n
        }
    }

    package func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// `text` as a JSON string: quoted, with `"`, `\` and control characters escaped as JSONEncoder does.
    func appendQuoted(_ text: String) {
        append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            let raw = UnsafeRawBufferPointer(utf8)
            var start = 0
            for (index, byte) in raw.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                append(UnsafeRawBufferPointer(rebasing: raw[start..<index]))
                appendEscaped(byte)
                start = index + 1
            }
            append(UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
        append(0x22)
    }

    private func appendEscaped(_ byte: UInt8) {
        append(0x5C)
        switch byte {
        case 0x22, 0x5C: append(byte)
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            for digit in [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] { append(digit) }
        }
    }

    /// The bytes, block by block, in order.
    package var regions: [UnsafeRawBufferPointer] {
        blocks.indices.map { index in
            UnsafeRawBufferPointer(
                start: blocks[index], count: index == blocks.count - 1 ? usedInLast : Self.blockSize)
        }
    }

    private func addBlock() {
        blocks.append(malloc(Self.blockSize)!)
        usedInLast = 0
    }
}

/// A value being encoded: JSON's sorted keys need an object's members all known before it is written.
private enum JSONNode {
    /// A number, `true`, `false` or `null`, as written.
    case literal(String)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)
    /// A super encoder's value, known once the encoding is over.
    case later(JSONNodeEncoder)

    static func of(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONNode {
        switch value {
        case let date as Date: return .string(date.formatted(.iso8601))
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        default:
            let encoder = JSONNodeEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.node ?? .object(JSONObject())
        }
    }

    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible, codingPath: [any CodingKey])
        throws -> JSONNode
    {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        let text = value.description
        return .literal(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    }

    func write(to output: ChunkedBytes) {
        switch self {
        case .literal(let text): output.append(text)
        case .string(let text): output.appendQuoted(text)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            var first = true
            for part in array.parts {
                for value in part {
                    if !first { output.append(UInt8(ascii: ",")) }
                    first = false
                    value.write(to: output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.sortedMembers().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.appendQuoted(member.key)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: output)
            }
            output.append(UInt8(ascii: "}"))
        case .later(let encoder): (encoder.node ?? .object(JSONObject())).write(to: output)
        }
    }
}

private final class JSONArray {
    /// At most 1,024 values a part: a long array (a task group's ids) is many small blocks.
    private(set) var parts: [[JSONNode]] = []
    private(set) var count = 0

    func append(_ value: JSONNode) {
        if parts.isEmpty || parts[parts.count - 1].count == 1_024 { parts.append([]) }
        parts[parts.count - 1].append(value)
        count += 1
    }
}

private final class JSONObject {
    /// In the order encoded; a key encoded again replaces its value, as in JSONEncoder.
    private var members: [(key: String, value: JSONNode)] = []

    func set(_ key: some CodingKey, _ value: JSONNode) { members.append((key.stringValue, value)) }

    /// By the keys' UTF-8 bytes, as JSONEncoder's `.sortedKeys`; of a repeated key, the last value.
    func sortedMembers() -> [(key: String, value: JSONNode)] {
        let sorted = members.enumerated().sorted {
            $0.element.key == $1.element.key
                ? $0.offset < $1.offset : $0.element.key.utf8.lexicographicallyPrecedes($1.element.key.utf8)
        }.map(\.element)
        return sorted.indices.filter { $0 == sorted.count - 1 || sorted[$0 + 1].key != sorted[$0].key }
            .map { sorted[$0] }
    }
}

private final class JSONNodeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: JSONNode?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let object)? = node {
            return KeyedEncodingContainer(KeyedContainer(object: object, codingPath: codingPath))
        }
        let object = JSONObject()
        node = .object(object)
        return KeyedEncodingContainer(KeyedContainer(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let array)? = node { return UnkeyedContainer(array: array, codingPath: codingPath) }
        let array = JSONArray()
        node = .array(array)
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { object.set(key, .literal("null")) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { object.set(key, .literal(value ? "true" : "false")) }
    mutating func encode(_ value: String, forKey key: Key) throws { object.set(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        object.set(key, try .number(value, codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        object.set(key, try .number(value, codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { object.set(key, .literal(String(value))) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        object.set(key, try .of(value, codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONObject()
        object.set(key, .object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArray()
        object.set(key, .array(nested))
        return UnkeyedContainer(array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: JSONKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let encoder = JSONNodeEncoder(codingPath: codingPath + [key])
        object.set(key, .later(encoder))
        return encoder
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let array: JSONArray
    let codingPath: [any CodingKey]
    var count: Int { array.count }
    private var nextKey: JSONKey { JSONKey(index: array.count) }

    init(array: JSONArray, codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    mutating func encodeNil() throws { array.append(.literal("null")) }
    mutating func encode(_ value: Bool) throws { array.append(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) throws { array.append(.string(value)) }
    mutating func encode(_ value: Double) throws {
        array.append(try .number(value, codingPath: codingPath + [nextKey]))
    }
    mutating func encode(_ value: Float) throws { array.append(try .number(value, codingPath: codingPath + [nextKey])) }
    mutating func encode(_ value: Int) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: Int8) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: Int16) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: Int32) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: Int64) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: UInt) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: UInt8) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: UInt16) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: UInt32) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: UInt64) throws { array.append(.literal(String(value))) }
    mutating func encode(_ value: some Encodable) throws {
        array.append(try .of(value, codingPath: codingPath + [nextKey]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONObject()
        let path = codingPath + [nextKey]
        array.append(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArray()
        let path = codingPath + [nextKey]
        array.append(.array(nested))
        return UnkeyedContainer(array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONNodeEncoder(codingPath: codingPath + [nextKey])
        array.append(.later(encoder))
        return encoder
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONNodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.node = .literal("null") }
    mutating func encode(_ value: Bool) throws { encoder.node = .literal(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { encoder.node = .string(value) }
    mutating func encode(_ value: Double) throws { encoder.node = try .number(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { encoder.node = try .number(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: Int8) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: Int16) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: Int32) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: Int64) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: UInt) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: UInt16) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.node = .literal(String(value)) }
    mutating func encode(_ value: some Encodable) throws { encoder.node = try .of(value, codingPath: codingPath) }
}

private struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(index: intValue) }
}
