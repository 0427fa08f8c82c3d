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
/// above. Large outputs are split in row bands across cores.
public enum NearestNeighbor {
    /// The source index of destination index `d` when `source` pixels become `destination` pixels.
    @inline(__always)
    public static func sourceIndex(_ d: Int, source: Int, destination: Int) -> Int {
        (2 * d + 1) * source / (2 * destination)
    }

    /// Outputs smaller than this are scaled on the calling thread: below it, waking another core
    /// costs more than it saves.
    public static let parallelThresholdBytes = 1 << 20

    /// Scales `source` (`sourceWidth` × `sourceHeight` pixels of `bytesPerPixel` bytes, rows
    /// `sourceRowBytes` apart) into `destination`. Buffers must not overlap. `threads` bands run in
    /// parallel (1 = on the calling thread); nil picks the number of cores for large outputs.
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
            destinationRowBytes: destinationRowBytes, bytesPerPixel: bytesPerPixel)
        let outputBytes = destinationRowBytes * destinationHeight
        let bands =
            threads
            ?? (outputBytes < parallelThresholdBytes ? 1 : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
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

    func run(rows: Range<Int>) {
        let rowBytes = destinationWidth * bytesPerPixel
        let expand = rowExpander()
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
        switch bpp {
        case 1: return { gather(UInt8.self, $0, $1, map) }
        case 2: return { gather(UInt16.self, $0, $1, map) }
        case 4: return { gather(UInt32.self, $0, $1, map) }
        case 8: return { gather(UInt64.self, $0, $1, map) }
        default: return { gatherBytes($0, $1, map, bpp) }
        }
    }
}

@inline(__always)
private func replicate<T: FixedWidthInteger>(
    _: T.Type, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int, _ k: Int
) {
    var out = destination
    for x in 0..<count {
        let value = source.loadUnaligned(fromByteOffset: x * MemoryLayout<T>.size, as: T.self)
        for _ in 0..<k {
            out.storeBytes(of: value, as: T.self)
            out += MemoryLayout<T>.size
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

@inline(__always)
private func gather<T: FixedWidthInteger>(
    _: T.Type, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ map: [Int]
) {
    map.withUnsafeBufferPointer { map in
        for (x, sourceX) in map.enumerated() {
            let value = source.loadUnaligned(fromByteOffset: sourceX * MemoryLayout<T>.size, as: T.self)
            destination.storeBytes(of: value, toByteOffset: x * MemoryLayout<T>.size, as: T.self)
        }
    }
}

private func gatherBytes(
    _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ map: [Int], _ bpp: Int
) {
    for (x, sourceX) in map.enumerated() {
        memcpy(destination + x * bpp, source + sourceX * bpp, bpp)
    }
}
