extension Image {
    /// This image scaled with nearest-neighbour to `target`. The result has the same pixel format,
    /// palette and transparency key; its colours are a subset of this image's.
    ///
    /// - Parameters:
    ///   - maxPixels: refuse outputs with more pixels than this, before allocating them.
    ///   - threads: row bands scaled in parallel (1 = on the calling thread, starting no Dispatch
    ///     worker); nil picks 8 per core for large outputs.
    public func scaled(to target: ScaleTarget, maxPixels: Int = PNG.defaultMaxPixels, threads: Int? = nil)
        throws(PixelArtError) -> Image
    {
        let size = try target.outputSize(width: width, height: height)
        return try scaled(width: size.width, height: size.height, maxPixels: maxPixels, threads: threads)
    }

    public func scaled(
        width newWidth: Int, height newHeight: Int, maxPixels: Int = PNG.defaultMaxPixels, threads: Int? = nil
    ) throws(PixelArtError) -> Image {
        guard newWidth > 0, newHeight > 0 else { throw .invalidScale("output size \(newWidth)×\(newHeight) is empty") }
        let (pixelCount, overflow) = newWidth.multipliedReportingOverflow(by: newHeight)
        guard !overflow, pixelCount <= maxPixels else {
            throw .tooManyPixels(width: newWidth, height: newHeight, limit: maxPixels)
        }
        let byteCount: Int
        do {
            byteCount = try Image.byteCount(width: newWidth, height: newHeight, format: format)
        } catch {
            throw .invalidScale(error.description)
        }
        let rowBytes = newWidth * format.bytesPerPixel
        let output = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            pixels.withUnsafeBytes { source in
                NearestNeighbor.scale(
                    source: source.baseAddress!, sourceWidth: width, sourceHeight: height, sourceRowBytes: bytesPerRow,
                    destination: UnsafeMutableRawPointer(buffer.baseAddress!), destinationWidth: newWidth,
                    destinationHeight: newHeight, destinationRowBytes: rowBytes, bytesPerPixel: format.bytesPerPixel,
                    threads: threads)
            }
            count = byteCount
        }
        return Image(
            unchecked: newWidth, height: newHeight, format: format, pixels: output, palette: palette,
            transparentKey: transparentKey)
    }

    /// Scales `source` into `destination`'s existing buffer (same format; `destination` keeps its
    /// size and takes `source`'s palette and key). Reusing a buffer avoids page faults when the
    /// same scale runs repeatedly.
    public static func scale(_ source: Image, into destination: inout Image, threads: Int? = nil)
        throws(PixelArtError)
    {
        guard source.format == destination.format else {
            throw .invalidScale("cannot scale \(source.format) into \(destination.format)")
        }
        destination.palette = source.palette
        destination.transparentKey = source.transparentKey
        let (w, h, rowBytes, bpp) =
            (destination.width, destination.height, destination.bytesPerRow, destination.format.bytesPerPixel)
        source.pixels.withUnsafeBytes { input in
            destination.pixels.withUnsafeMutableBytes { output in
                NearestNeighbor.scale(
                    source: input.baseAddress!, sourceWidth: source.width, sourceHeight: source.height,
                    sourceRowBytes: source.bytesPerRow, destination: output.baseAddress!, destinationWidth: w,
                    destinationHeight: h, destinationRowBytes: rowBytes, bytesPerPixel: bpp, threads: threads)
            }
        }
    }
}
