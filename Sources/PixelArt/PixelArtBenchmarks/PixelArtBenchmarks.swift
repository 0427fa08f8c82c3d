import Harness
import PerfReport
import PixelArt

#if canImport(Glibc)
    import Glibc
#endif

/// PixelArt's benchmarks: the scaling kernel on RGBA 8-bit pixel art, PNG decode and encode, and
/// the machine's own ceiling (memset and memcpy of each output size) that `analyze` compares the
/// scalers with.
public let pixelArtSuite = BenchmarkSuite(
    name: "PixelArt",
    benchmarks: ScaleCase.all.map(\.benchmark) + ceilingBenchmarks + pngBenchmarks,
    analyze: { results in addCeilingCounters(&results) }
)

/// One scaler benchmark: a pixel-art source scaled into a preallocated destination (so page faults
/// of a fresh buffer are not part of the kernel's time; the ceilings use preallocated buffers too).
struct ScaleCase {
    let name: String
    let source: (width: Int, height: Int)
    let destination: (width: Int, height: Int)

    static let all: [ScaleCase] = [
        ScaleCase(name: "rgba8-1024-x2", source: (1024, 1024), destination: (2048, 2048)),
        ScaleCase(name: "rgba8-1024-x4", source: (1024, 1024), destination: (4096, 4096)),
        ScaleCase(name: "rgba8-1024-x8", source: (1024, 1024), destination: (8192, 8192)),
        ScaleCase(name: "rgba8-1024-to-3000x1700", source: (1024, 1024), destination: (3000, 1700)),
        ScaleCase(name: "rgba8-4096-to-1024", source: (4096, 4096), destination: (1024, 1024)),
    ]

    var outputBytes: Int { destination.width * destination.height * 4 }
    var ceilingSuffix: String { "\(destination.width)x\(destination.height)x4" }

    var benchmark: Benchmark {
        let source = source
        let destination = destination
        return Benchmark(
            "PixelArt/scale/\(name)", throughput: { _ in .bytes(outputBytes) },
            setup: { _ in
                ScaleState(
                    source: try pixelArtImage(width: source.width, height: source.height),
                    destination: try Image(
                        width: destination.width, height: destination.height, format: .rgba8,
                        pixels: [UInt8](repeating: 0, count: destination.width * destination.height * 4)))
            },
            body: { state, iterations in
                for _ in 0..<iterations { state.run() }
                blackHole(state.destination.pixels.last)
            })
    }
}

final class ScaleState {
    let source: Image
    var destination: Image

    init(source: Image, destination: Image) {
        self.source = source
        self.destination = destination
    }

    func run() {
        // Same format by construction, so this cannot throw.
        try! Image.scale(source, into: &destination)
    }
}

/// memset and memcpy of every scaler output size: references for the machine's memory bandwidth, which
/// a neighbour moves by tens of percent between a time gate's runs; 50% still catches a broken setup
/// (buffers no longer page-touched cost several times more) (docs/pixelart.md#the-ceilings-in-the-time-gate).
let ceilingThresholdPercent = 50.0

let ceilingBenchmarks: [Benchmark] = {
    var sizes: [(Int, Int)] = []
    for c in ScaleCase.all where !sizes.contains(where: { $0 == c.destination }) { sizes.append(c.destination) }
    return sizes.flatMap { (width, height) -> [Benchmark] in
        let bytes = width * height * 4
        return [
            Benchmark(
                "PixelArt/ceiling/memset-\(width)x\(height)x4", throughput: { _ in .bytes(bytes) },
                thresholdPercent: ceilingThresholdPercent,
                setup: { _ in Buffers(count: bytes, copies: 1) },
                body: { buffers, iterations in
                    for i in 0..<iterations { memset(buffers.target, Int32(i & 0xFF), bytes) }
                    blackHole(buffers.target.load(as: UInt8.self))
                }),
            Benchmark(
                "PixelArt/ceiling/memcpy-\(width)x\(height)x4", throughput: { _ in .bytes(bytes) },
                thresholdPercent: ceilingThresholdPercent,
                setup: { _ in Buffers(count: bytes, copies: 2) },
                body: { buffers, iterations in
                    for _ in 0..<iterations { memcpy(buffers.target, buffers.source!, bytes) }
                    blackHole(buffers.target.load(as: UInt8.self))
                }),
        ]
    }
}()

/// Page-touched buffers, so the ceilings measure bandwidth rather than first-touch page faults.
final class Buffers {
    let target: UnsafeMutableRawPointer
    let source: UnsafeMutableRawPointer?

    init(count: Int, copies: Int) {
        target = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
        memset(target, 1, count)
        if copies > 1 {
            let source = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
            memset(source, 2, count)
            self.source = source
        } else {
            source = nil
        }
    }

    deinit {
        target.deallocate()
        source?.deallocate()
    }
}

let pngBenchmarks: [Benchmark] = [
    Benchmark(
        "PixelArt/png/decode-rgba8-1024", throughput: { _ in .bytes(1024 * 1024 * 4) },
        setup: { _ in try PNG.encode(try pixelArtImage(width: 1024, height: 1024)) },
        body: { png, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.decode(png)) }
        }),
    Benchmark(
        "PixelArt/png/encode-rgba8-1024", throughput: { _ in .bytes(1024 * 1024 * 4) },
        setup: { _ in try pixelArtImage(width: 1024, height: 1024) },
        body: { image, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.encode(image)) }
        }),
    // Its four bands on one core: the twin the instruction gate measures (callgrind counts the
    // bands that ran on the calling thread, one to four of them, run by run).
    Benchmark(
        "PixelArt/png/encode-rgba8-1024-1-thread", throughput: { _ in .bytes(1024 * 1024 * 4) },
        setup: { _ in try pixelArtImage(width: 1024, height: 1024) },
        body: { image, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.encode(image, threads: 1)) }
        }),
    Benchmark(
        "PixelArt/png/encode-rgba8-4096-upscaled", throughput: { _ in .bytes(4096 * 4096 * 4) },
        // Scaled on this thread: a process that has started a Dispatch worker keeps a pool monitor that
        // now and then starts a thread, an allocation counted here and a stack in /proc/self/maps
        // (docs/regression-gate.md, "What it took").
        setup: { _ in try pixelArtImage(width: 1024, height: 1024).scaled(to: .factor(4), threads: 1) },
        body: { image, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.encode(image)) }
        }),
    // The banded writer on one core: what the other cores add is the ratio to the case above.
    Benchmark(
        "PixelArt/png/encode-rgba8-4096-upscaled-1-thread", throughput: { _ in .bytes(4096 * 4096 * 4) },
        setup: { _ in try pixelArtImage(width: 1024, height: 1024).scaled(to: .factor(4), threads: 1) },
        body: { image, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.encode(image, threads: 1)) }
        }),
    // Random noise: no filter trick helps, only the cores.
    Benchmark(
        "PixelArt/png/encode-rgba8-4096-noise-upscaled", throughput: { _ in .bytes(4096 * 4096 * 4) },
        setup: { _ in try noiseImage(width: 1024, height: 1024).scaled(to: .factor(4), threads: 1) },
        body: { image, iterations in
            for _ in 0..<iterations { blackHole(try! PNG.encode(image)) }
        }),
]

/// Deterministic random RGBA noise: every byte independent, so nothing compresses well.
func noiseImage(width: Int, height: Int) throws -> Image {
    var state: UInt64 = 0xD1CE
    let pixels = (0..<(width * height * 4)).map { _ -> UInt8 in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
    return try Image(width: width, height: height, format: .rgba8, pixels: pixels)
}

/// Deterministic pixel art: 8×8-pixel blocks in 16 colours (some translucent), with a few stray
/// single pixels, so PNG filters and zlib see something like a sprite sheet.
func pixelArtImage(width: Int, height: Int) throws -> Image {
    var state: UInt64 = 0x5EED
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    let palette: [[UInt8]] = (0..<16).map { i in
        [UInt8(next() & 0xFF), UInt8(next() & 0xFF), UInt8(next() & 0xFF), i < 12 ? 255 : UInt8(60 * (i - 11))]
    }
    let blocksX = (width + 7) / 8
    let blocks = (0..<blocksX * ((height + 7) / 8)).map { _ in Int(next() % 16) }
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let colour = next() % 64 == 0 ? Int(next() % 16) : blocks[(y / 8) * blocksX + x / 8]
            let offset = (y * width + x) * 4
            for c in 0..<4 { pixels[offset + c] = palette[colour][c] }
        }
    }
    return try Image(width: width, height: height, format: .rgba8, pixels: pixels)
}

/// Adds to each scaler result how fast it is compared with memset and memcpy of its output size
/// (100 = as fast as the copy), and a warning when it is more than 1.25× slower than memset.
func addCeilingCounters(_ results: inout [BenchmarkResult]) {
    func median(_ name: String) -> Double? {
        results.first { $0.group == "ceiling" && $0.name == name }?.wallTime.median
    }
    for index in results.indices where results[index].group == "scale" {
        guard let scaleCase = ScaleCase.all.first(where: { $0.name == results[index].name }) else { continue }
        let time = results[index].wallTime.median
        guard time > 0 else { continue }
        if let memcpyTime = median("memcpy-\(scaleCase.ceilingSuffix)") {
            results[index].counters["percentOfMemcpyCeiling"] = 100 * memcpyTime / time
        }
        if let memsetTime = median("memset-\(scaleCase.ceilingSuffix)") {
            results[index].counters["percentOfMemsetCeiling"] = 100 * memsetTime / time
            let ratio = time / memsetTime
            if ratio > 1.25 {
                results[index].warnings.append(
                    Warning(
                        rule: "slower-than-memset-ceiling",
                        message: String(
                            format: "takes %.2f× the time of memset of its output (target ≤ 1.25×)", ratio)))
            }
        } else {
            results[index].warnings.append(
                Warning(
                    rule: "ceiling-not-measured",
                    message: "run PixelArt/ceiling/memset-\(scaleCase.ceilingSuffix) in the same run to compare"))
        }
    }
}
