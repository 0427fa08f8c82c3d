import CZlib
import Foundation

/// gzip (RFC 1952) through the system zlib, as pprof expects its profiles on disk.
public enum Gzip {
    public struct CompressionError: Error, CustomStringConvertible {
        /// zlib's status (Z_MEM_ERROR, …).
        public var status: Int32
        public var description: String { "gzip compression failed (zlib status \(status))" }
    }

    /// The bytes as one gzip member (no file name, zlib's default level).
    public static func compress(_ data: Data) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = data.withUnsafeBytes { buffer in
            // An empty Data may have no base address; zlib is given a valid pointer either way.
            let input = buffer.bindMemory(to: UInt8.self).baseAddress
            return withUnsafePointer(to: UInt8(0)) { empty in
                czlib_gzip(input ?? empty, buffer.count, &output, &length)
            }
        }
        guard status == 0, let output else { throw CompressionError(status: status) }
        defer { free(output) }
        return Data(bytes: output, count: length)
    }

    public struct DecompressionError: Error, CustomStringConvertible {
        public var status: Int32
        public var description: String {
            switch status {
            case -3: return "not gzip data (or corrupt)"
            case -5: return "truncated, or larger than allowed when decompressed"
            default: return "gzip decompression failed (zlib status \(status))"
            }
        }
    }

    /// The decompressed bytes of gzip (or zlib) `data`, at most `limit` of them.
    public static func decompress(_ data: Data, limit: Int = 1 << 30) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = data.withUnsafeBytes { buffer in
            let input = buffer.bindMemory(to: UInt8.self).baseAddress
            return withUnsafePointer(to: UInt8(0)) { empty in
                czlib_gunzip(input ?? empty, buffer.count, limit, &output, &length)
            }
        }
        guard status == 0, let output else { throw DecompressionError(status: status) }
        defer { free(output) }
        return Data(bytes: output, count: length)
    }
}
