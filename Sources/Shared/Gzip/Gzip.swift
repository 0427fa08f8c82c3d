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
}
