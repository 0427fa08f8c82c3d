import CPNG

/// PNG decoding and encoding through libpng.
public enum PNG {
    /// The default limit on decoded pixels: 2^28 (268 million; 1 GiB as RGBA 8-bit).
    public static let defaultMaxPixels = 1 << 28

    /// How the encoder filters rows, and so which writer deflates the image data.
    ///
    /// Every case but `.automatic` and `.all` uses perfkit's banded writer: the image data is cut
    /// into bands of about 1 MiB that are filtered and deflated on every core (see
    /// `cpng_banded_idat`), libpng writing the rest of the file. `.automatic` and `.all` hand the
    /// rows to libpng's own writer (one thread, libpng's filter choice over the allowed filters).
    public enum Filter: Sendable, Hashable {
        /// The content decides: a row that repeats the one above, or whose pixels repeat across
        /// (an upscale's rows), is *Up* without trying the others; any other row gets libpng's
        /// heuristic.
        case content
        /// libpng's heuristic on every row (the filter whose bytes have the smallest sum of signed
        /// magnitudes), on the banded writer.
        case adaptive
        /// One filter for every row, on the banded writer.
        case none, sub, up, average, paeth
        /// libpng's own writer with its default choice (adaptive for truecolour 8-bit and up, none
        /// for palette and low bit depths), or with every filter allowed.
        case automatic, all

        var libpngMask: Int32 {
            switch self {
            case .automatic: -1
            case .all: 0xf8
            case .none: 0x08
            case .sub: 0x10
            case .up: 0x20
            case .average: 0x40
            case .paeth: 0x80
            case .content, .adaptive: -1
            }
        }

        /// The banded writer's filter, or nil for libpng's writer.
        var bandFilter: Int32? {
            switch self {
            case .content: Int32(CPNG_FILTER_CONTENT)
            case .adaptive: Int32(CPNG_FILTER_ADAPTIVE)
            case .none: 0
            case .sub: 1
            case .up: 2
            case .average: 3
            case .paeth: 4
            case .automatic, .all: nil
            }
        }
    }

    /// Decodes a PNG, keeping its pixel format. The header is checked against `maxPixels` before any
    /// pixel memory is allocated.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = defaultMaxPixels) throws(PixelArtError) -> Image {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(PixelArtError) in try decode(raw, maxPixels: maxPixels) }
        }
        return try result.get()
    }

    /// IEND checked here, whatever libpng does: 1.6.39 (Debian 12) refuses a bad IEND CRC, 1.6.59
    /// (Debian sid) accepts it. IEND carries no data, so its CRC is a constant. Walks chunk headers
    /// only; a file libpng accepted without IEND is left as it is.
    static func endChunkProblem(_ bytes: UnsafeRawBufferPointer) -> String? {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if bytes[offset + 4..<offset + 8].elementsEqual("IEND".utf8) {
                guard length == 0 else { return "IEND chunk has \(length) bytes of data" }
                return bytes[offset + 8..<offset + 12].elementsEqual([0xAE, 0x42, 0x60, 0x82]) ? nil : "IEND: CRC error"
            }
            offset += 12 + length
        }
        return nil
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int = defaultMaxPixels)
        throws(PixelArtError) -> Image
    {
        var message = MessageBuffer()
        var info = cpng_info()
        var reader: OpaquePointer?
        var status: Int32 = -1
        if let base = bytes.baseAddress {
            status = message.status {
                cpng_reader_open(base, bytes.count, UInt64(max(maxPixels, 0)), &info, &reader, $0, $1)
            }
        }
        let width = Int(info.width)
        let height = Int(info.height)
        if status == Int32(CPNG_TOO_MANY_PIXELS) {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        guard status == 0, let reader else { throw .invalidPNG(bytes.isEmpty ? "file is empty" : message.text) }
        defer { cpng_reader_close(reader) }

        let format = try pixelFormat(colorType: info.color_type, bitDepth: Int(info.bit_depth))
        let byteCount = try Image.byteCount(width: width, height: height, format: format)
        let rowBytes = width * format.bytesPerPixel
        guard info.row_bytes == rowBytes else {
            throw .invalidPNG("unexpected decoded row size \(info.row_bytes) for \(width) pixels of \(format)")
        }
        var decoded = true
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            decoded = message.call { cpng_reader_read(reader, buffer.baseAddress, rowBytes, $0, $1) }
            count = byteCount
        }
        guard decoded else { throw .invalidPNG(message.text) }
        if let problem = endChunkProblem(bytes) { throw .invalidPNG(problem) }

        var palette: [PaletteEntry] = []
        if format.colorType == .indexed {
            palette = withUnsafeBytes(of: info.palette) { raw in
                (0..<Int(info.palette_count)).map { i in
                    PaletteEntry(red: raw[4 * i], green: raw[4 * i + 1], blue: raw[4 * i + 2], alpha: raw[4 * i + 3])
                }
            }
            // libpng does not check indices against the palette size; an out-of-range index has no colour.
            if let bad = pixels.first(where: { Int($0) >= palette.count }) {
                throw .invalidPNG("palette index \(bad) is beyond the \(palette.count)-entry palette")
            }
        }
        var transparentKey: [UInt16]?
        if info.has_transparent_key != 0 {
            let key = [info.transparent_key.0, info.transparent_key.1, info.transparent_key.2]
            transparentKey = Array(key.prefix(format.colorType == .gray ? 1 : 3))
        }
        return Image(
            unchecked: width, height: height, format: format, pixels: pixels, palette: palette,
            transparentKey: transparentKey)
    }

    /// Reads and decodes the PNG file at `path`.
    public static func read(path: String, maxPixels: Int = defaultMaxPixels) throws(PixelArtError) -> Image {
        try decode(try FileIO.readAll(path), maxPixels: maxPixels)
    }

    /// Encodes `image` as a non-interlaced PNG in its own pixel format (indexed images keep their
    /// palette and transparency). `compressionLevel` is zlib's 0 (none) … 9 (smallest); `threads`
    /// the cores the banded writer deflates on (0: all), which never changes the bytes written.
    public static func encode(_ image: Image, compressionLevel: Int = 6, filter: Filter = .content, threads: Int = 0)
        throws(PixelArtError) -> [UInt8]
    {
        try withEncoded(image, compressionLevel: compressionLevel, filter: filter, threads: threads) { Array($0) }
    }

    /// Encodes `image` and writes it to `path` atomically: `path` is replaced only once the whole
    /// file was written, so a failure never leaves a partial file.
    public static func write(
        _ image: Image, to path: String, compressionLevel: Int = 6, filter: Filter = .content, threads: Int = 0
    ) throws(PixelArtError) {
        try withEncoded(image, compressionLevel: compressionLevel, filter: filter, threads: threads) {
            (bytes) throws(PixelArtError) in
            try FileIO.writeAtomically(bytes, to: path)
        }
    }

    static func withEncoded<R>(
        _ image: Image, compressionLevel: Int, filter: Filter, threads: Int,
        _ body: (UnsafeRawBufferPointer) throws(PixelArtError) -> R
    ) throws(PixelArtError) -> R {
        guard (0...9).contains(compressionLevel) else {
            throw .encodingFailed("compression level \(compressionLevel) is not in 0…9")
        }
        guard threads >= 0 else { throw .encodingFailed("threads must be 0 (all cores) or more, not \(threads)") }
        var params = cpng_write_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.bit_depth = Int32(image.format.bitDepth)
        params.color_type = libpngColorType(image.format.colorType)
        params.compression_level = Int32(compressionLevel)
        params.filters = filter.libpngMask
        if let bandFilter = filter.bandFilter, image.width > 0, image.height > 0 {
            params.banded = 1
            params.band_filter = bandFilter
            params.threads = Int32(clamping: threads)
        }
        if let key = image.transparentKey {
            params.has_transparent_key = 1
            params.transparent_key = (key[0], key.count > 1 ? key[1] : 0, key.count > 2 ? key[2] : 0)
        }
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        for (i, entry) in image.palette.enumerated() {
            palette[4 * i..<4 * i + 4] = [entry.red, entry.green, entry.blue, entry.alpha]
        }
        params.palette_count = Int32(image.palette.count)

        var message = MessageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let encoded = palette.withUnsafeBytes { paletteBytes in
            params.palette = paletteBytes.baseAddress!.assumingMemoryBound(to: (UInt8, UInt8, UInt8, UInt8).self)
            return image.pixels.withUnsafeBytes { pixels in
                message.call {
                    cpng_write(&params, pixels.baseAddress, image.bytesPerRow, &output, &outputSize, $0, $1)
                }
            }
        }
        guard encoded, let output else { throw .encodingFailed(message.text) }
        defer { cpng_free(output) }
        return try body(UnsafeRawBufferPointer(start: output, count: outputSize))
    }

    static func pixelFormat(colorType: Int32, bitDepth: Int) throws(PixelArtError) -> PixelFormat {
        let type: ColorType
        switch colorType {
        case 0: type = .gray
        case 2: type = .rgb
        case 3: type = .indexed
        case 4: type = .grayAlpha
        case 6: type = .rgba
        default: throw .invalidPNG("unknown colour type \(colorType)")
        }
        do {
            return try PixelFormat(type, bitDepth: bitDepth)
        } catch {
            throw .invalidPNG(error.description)
        }
    }

    static func libpngColorType(_ type: ColorType) -> Int32 {
        switch type {
        case .gray: 0
        case .rgb: 2
        case .indexed: 3
        case .grayAlpha: 4
        case .rgba: 6
        }
    }
}

/// A fixed buffer for the C side's error message.
private struct MessageBuffer {
    private var bytes = [CChar](repeating: 0, count: Int(CPNG_MESSAGE_SIZE))

    /// Runs a C call that returns 0 on success, handing it the buffer; returns whether it succeeded.
    mutating func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> Bool {
        status(body) == 0
    }

    /// Runs a C call, handing it the buffer; returns its status code.
    mutating func status(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> Int32 {
        bytes.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    }

    var text: String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        let text = String(decoding: bytes[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "unknown libpng error" : text
    }
}
