import CPixelCopy
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The nearest-neighbour kernel on raw pixel buffers.
///
/// Mapping (pixel centres): destination pixel `d` of `dst` takes source pixel
/// `floor((2d + 1) · src / (2 · dst))`, computed exactly in 64-bit integers (no floating-point
/// drift on large images; at an exact tie the higher source pixel wins).
///
/// Speed comes from never treating a destination pixel twice: each source row needed is expanded
/// once into a destination row (a run copy: a whole-factor upscale repeats each pixel k times),
/// and every following destination row that maps to the same source row is a `memcpy` of the row
/// above. Large outputs are split in row bands across cores. Outputs much larger than the L2
/// cache are written with streaming stores from a cached scratch row instead (no read-for-ownership
/// of destination lines, as glibc's memset does for large fills).
public enum NearestNeighbor {
    /// The source index of destination index `d` when `source` pixels become `destination` pixels.
    @inline(__always)
    public static func sourceIndex(_ d: Int, source: Int, destination: Int) -> Int {
        (2 * d + 1) * source / (2 * destination)
    }

    /// Outputs smaller than this are scaled on the calling thread: below it, waking another core
    /// costs more than it saves.
    public static let parallelThresholdBytes = 1 << 20

    /// Outputs at least this large are written with streaming stores. Far beyond the per-core L2
    /// cache, writing through the cache costs a read of every destination line; measured here
    /// (EPYC, 512 KiB L2 per core) streaming already wins at 16 MiB outputs.
    public static let streamingThresholdBytes = 4 << 20

    /// Scales `source` (`sourceWidth` × `sourceHeight` pixels of `bytesPerPixel` bytes, rows
    /// `sourceRowBytes` apart) into `destination`. Buffers must not overlap. The output is split in
    /// `threads` row bands run in parallel (1 = on the calling thread); nil picks 8 per core for
    /// large outputs.
    public static func scale(
        source: UnsafeRawPointer, sourceWidth: Int, sourceHeight: Int, sourceRowBytes: Int,
        destination: UnsafeMutableRawPointer, destinationWidth: Int, destinationHeight: Int,
        destinationRowBytes: Int, bytesPerPixel: Int, threads: Int? = nil
    ) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && destinationWidth > 0 && destinationHeight > 0)
        precondition(sourceWidth <= Int(Int32.max) && destinationWidth <= Int(Int32.max))
        precondition(sourceHeight <= Int(Int32.max) && destinationHeight <= Int(Int32.max))
        precondition(sourceRowBytes >= sourceWidth * bytesPerPixel)
        precondition(destinationRowBytes >= destinationWidth * bytesPerPixel)
        let job = Job(
            source: source, sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceRowBytes: sourceRowBytes,
            destination: destination, destinationWidth: destinationWidth, destinationHeight: destinationHeight,
            destinationRowBytes: destinationRowBytes, bytesPerPixel: bytesPerPixel,
            streaming: destinationRowBytes * destinationHeight >= streamingThresholdBytes)
        let outputBytes = destinationRowBytes * destinationHeight
        // Eight bands per core: concurrentPerform hands bands out as cores become free, so a core
        // that another process holds for a while does not leave the whole image waiting on its band.
        let bands =
            threads
            ?? (outputBytes < parallelThresholdBytes ? 1 : 8 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let bandCount = min(max(bands, 1), destinationHeight)
        if bandCount == 1 {
            job.run(rows: 0..<destinationHeight)
            return
        }
        DispatchQueue.concurrentPerform(iterations: bandCount) { band in
            let start = destinationHeight * band / bandCount
            let end = destinationHeight * (band + 1) / bandCount
            job.run(rows: start..<end)
        }
    }
}

/// One scaling operation; shared read-only by the bands, each of which writes disjoint rows.
private struct Job: @unchecked Sendable {
    let source: UnsafeRawPointer
    let sourceWidth: Int
    let sourceHeight: Int
    let sourceRowBytes: Int
    let destination: UnsafeMutableRawPointer
    let destinationWidth: Int
    let destinationHeight: Int
    let destinationRowBytes: Int
    let bytesPerPixel: Int
    let streaming: Bool

    func run(rows: Range<Int>) {
        let rowBytes = destinationWidth * bytesPerPixel
        let expand = rowExpander()
        if streaming {
            // Expand each needed source row once into a scratch row that stays in L1/L2, then stream it
            // to every destination row that maps to it.
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 64)
            defer { scratch.deallocate() }
            var previousSourceRow = -1
            for y in rows {
                let sourceRow = NearestNeighbor.sourceIndex(y, source: sourceHeight, destination: destinationHeight)
                if sourceRow != previousSourceRow {
                    expand(source + sourceRow * sourceRowBytes, scratch)
                    previousSourceRow = sourceRow
                }
                pixelcopy_stream(destination + y * destinationRowBytes, scratch, rowBytes)
            }
            pixelcopy_store_fence()
            return
        }
        var previousSourceRow = -1
        for y in rows {
            let sourceRow = NearestNeighbor.sourceIndex(y, source: sourceHeight, destination: destinationHeight)
            let out = destination + y * destinationRowBytes
            if sourceRow == previousSourceRow {
                memcpy(out, out - destinationRowBytes, rowBytes)
            } else {
                expand(source + sourceRow * sourceRowBytes, out)
                previousSourceRow = sourceRow
            }
        }
    }

    /// A function that turns one source row into one destination row.
    func rowExpander() -> (UnsafeRawPointer, UnsafeMutableRawPointer) -> Void {
        let width = destinationWidth
        let sourceWidth = sourceWidth
        let bpp = bytesPerPixel
        if width == sourceWidth {
            return { memcpy($1, $0, width * bpp) }
        }
        if width % sourceWidth == 0 {
            let k = width / sourceWidth
            switch bpp {
            case 1: return { replicate(UInt8.self, $0, $1, sourceWidth, k) }
            case 2: return { replicate(UInt16.self, $0, $1, sourceWidth, k) }
            case 4: return { replicate(UInt32.self, $0, $1, sourceWidth, k) }
            case 8: return { replicate(UInt64.self, $0, $1, sourceWidth, k) }
            default: return { replicateBytes($0, $1, sourceWidth, k, bpp) }
            }
        }
        // Arbitrary width: a precomputed map of source pixel per destination pixel.
        let map = (0..<width).map { NearestNeighbor.sourceIndex($0, source: sourceWidth, destination: width) }
        let aligned =
            [Int(bitPattern: source), Int(bitPattern: destination), sourceRowBytes, destinationRowBytes]
            .allSatisfy { $0 % bpp == 0 }
        if !aligned { return { gatherBytes($0, $1, map, bpp) } }
        switch bpp {
        case 1: return { gather(UInt8.self, $0, $1, map) }
        case 2: return { gather(UInt16.self, $0, $1, map) }
        case 4: return { gather(UInt32.self, $0, $1, map) }
        case 8: return { gather(UInt64.self, $0, $1, map) }
        default: return { gatherBytes($0, $1, map, bpp) }
        }
    }
}

/// Writes each of `count` source pixels `k` times. The run of one pixel is written 16 bytes at a
/// time (a vector holding copies of the pixel), then 8, then single pixels: storing pixel by pixel in
/// an inner loop over k is several times slower.
@inline(__always)
private func replicate<T: FixedWidthInteger & UnsignedInteger>(
    _: T.Type, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int, _ k: Int
) {
    let size = MemoryLayout<T>.size
    let runBytes = k * size
    let wide = runBytes / 16
    let tail = runBytes % 16
    // Multiplying by this spreads a pixel over all lanes of a UInt64 (size is 1, 2, 4 or 8).
    let spread: UInt64 = size == 8 ? 1 : (UInt64.max / (UInt64(1) << (8 * size) - 1))
    var out = destination
    for x in 0..<count {
        let value = source.loadUnaligned(fromByteOffset: x * size, as: T.self)
        let lanes = UInt64(value) &* spread
        let vector = SIMD2<UInt64>(repeating: lanes)
        for _ in 0..<wide {
            out.storeBytes(of: vector, as: SIMD2<UInt64>.self)
            out += 16
        }
        var remaining = tail
        if remaining >= 8 {
            out.storeBytes(of: lanes, as: UInt64.self)
            out += 8
            remaining -= 8
        }
        while remaining > 0 {
            out.storeBytes(of: value, as: T.self)
            out += size
            remaining -= size
        }
    }
}

private func replicateBytes(
    _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int, _ k: Int, _ bpp: Int
) {
    var out = destination
    for x in 0..<count {
        let pixel = source + x * bpp
        for _ in 0..<k {
            memcpy(out, pixel, bpp)
            out += bpp
        }
    }
}

/// Typed loads and stores: callers check that both rows are aligned for `T`.
@inline(__always)
private func gather<T: FixedWidthInteger>(
    _: T.Type, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ map: [Int]
) {
    let input = source.assumingMemoryBound(to: T.self)
    let output = destination.assumingMemoryBound(to: T.self)
    map.withUnsafeBufferPointer { map in
        for x in 0..<map.count { output[x] = input[map[x]] }
    }
}

private func gatherBytes(
    _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ map: [Int], _ bpp: Int
) {
    for (x, sourceX) in map.enumerated() {
        memcpy(destination + x * bpp, source + sourceX * bpp, bpp)
    }
}
