import Foundation

/// A gzip member (RFC 1952) around deflate *stored* blocks (RFC 1951 §3.2.4): no compression, so
/// Probe links no zlib, yet every gzip reader (`go tool pprof`, Pyroscope, `gzip -d`) takes it.
/// The price is size: the bytes go out uncompressed (plus 5 bytes a block and 18 of header and trailer).
package enum StoredGzip {
    /// The longest stored block deflate allows (its LEN field is 16 bits).
    package static let blockLimit = 65_535

    /// `data` as one gzip member: a 10-byte header (no name, no time), stored blocks of at most
    /// ``blockLimit`` bytes (one empty final block for empty data), CRC-32 and the length mod 2^32.
    package static func gzip(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        let blocks = max(1, (bytes.count + blockLimit - 1) / blockLimit)
        var out = [UInt8]()
        out.reserveCapacity(18 + bytes.count + blocks * 5)
        // ID1 ID2, CM = deflate, FLG = 0, MTIME = 0, XFL = 0, OS = 3 (Unix).
        out += [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        var start = 0
        repeat {
            let end = min(start + blockLimit, bytes.count)
            let length = UInt16(end - start)
            // BFINAL in bit 0, BTYPE = 00 (stored) in bits 1-2, the rest of the byte padding.
            out.append(end == bytes.count ? 1 : 0)
            appendLittleEndian(UInt32(length), bytes: 2, to: &out)
            appendLittleEndian(UInt32(~length), bytes: 2, to: &out)
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        appendLittleEndian(crc32(bytes), bytes: 4, to: &out)
        appendLittleEndian(UInt32(truncatingIfNeeded: bytes.count), bytes: 4, to: &out)
        return Data(out)
    }

    /// CRC-32 as gzip and zlib compute it (reflected polynomial 0xEDB88320, initial and final xor
    /// 0xFFFFFFFF): `crc32("123456789") == 0xCBF43926`.
    package static func crc32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    private static func appendLittleEndian(_ value: UInt32, bytes: Int, to out: inout [UInt8]) {
        for index in 0..<bytes {
            out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))))
        }
    }
}
