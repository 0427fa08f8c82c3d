import PerfkitMain
import ArgumentParser
import Dispatch
import Foundation
import PixelArt

package struct ScaleCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Scale PNG images with nearest-neighbour (pixel art stays crisp).",
        discussion: """
            perfkit scale IN.png OUT.png --factor 4
            perfkit scale a.png b.png sprites/ --output-dir big/ --fit 512x512

            With --output-dir, every argument is an input (a directory stands for its *.png files) and
            the files are processed in parallel with a progress line on stderr.
            """
    )

    @Argument(help: "IN.png OUT.png, or (with --output-dir) input files and directories.")
    var paths: [String]

    @OptionGroup var size: ScaleTargetOptions

    @Option(help: "zlib compression level, 0 (none) to 9 (smallest).")
    var compression: Int = 6

    @Option(
        help: ArgumentHelp(
            "PNG row filters.",
            discussion: "All but libpng, auto and all deflate bands of the image on every core."))
    var filter: RowFilter = .content

    @Option(help: "Threads the PNG encoder deflates on (default: every core; the bytes do not depend on it).")
    var encodeThreads: Int = 0

    @Option(help: "Refuse images (input or output) with more pixels than this.")
    var maxPixels: Int = PNG.defaultMaxPixels

    @Option(help: "Write the outputs of a batch into this directory.")
    var outputDir: String?

    @Option(help: "Files processed at once in a batch (default: number of cores).")
    var jobs: Int?

    @Flag(help: "Allow the output to replace the input file.")
    var overwrite = false

    @Flag(help: "Print the time of each phase (decode, scale, encode+write) to stderr.")
    var time = false

    @Option(
        help: """
            With --time: run the scaling kernel this many times into one buffer and report the median, \
            next to the median of memset and memcpy of a buffer of the output's size (the machine's ceiling).
            """)
    var kernelRepeats: Int = 1

    package func validate() throws {
        guard (0...9).contains(compression) else { throw ValidationError("--compression must be 0…9") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        guard kernelRepeats >= 1 else { throw ValidationError("--kernel-repeats must be at least 1") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        guard encodeThreads >= 0 else { throw ValidationError("--encode-threads must be 0 (every core) or more") }
        if outputDir == nil, paths.count != 2 {
            throw ValidationError("give IN.png OUT.png, or inputs and --output-dir")
        }
        if outputDir != nil, paths.isEmpty { throw ValidationError("no input files") }
    }

    package init() {}

    package func run() throws {
        let target = size.target
        guard let outputDir else {
            try scaleFile(input: paths[0], output: paths[1], target: target)
            return
        }
        try runBatch(outputDirectory: outputDir, target: target)
    }

    func scaleFile(input: String, output: String, target: ScaleTarget) throws {
        if !overwrite, FileManager.default.fileExists(atPath: output), sameFile(input, output) {
            throw PerfkitError(.invalidInput, "\(output): is the input file; pass --overwrite to replace it")
        }
        let clock = ContinuousClock()
        let start = clock.now
        let image: Image
        do {
            image = try PNG.read(path: input, maxPixels: maxPixels)
        } catch {
            throw PerfkitError(.invalidInput, "\(input): \(error)", cause: error)
        }
        let decoded = clock.now
        let scaled: Image
        var kernelTimes: [Duration] = []
        var memsetTimes: [Duration] = []
        var memcpyTimes: [Duration] = []
        do {
            scaled = try image.scaled(to: target, maxPixels: maxPixels)
            if time, kernelRepeats > 1 {
                var destination = scaled
                for _ in 0..<kernelRepeats {
                    let t0 = clock.now
                    try Image.scale(image, into: &destination)
                    kernelTimes.append(clock.now - t0)
                }
                var copy = destination.pixels
                copy.withUnsafeMutableBytes { target in
                    for i in 0..<kernelRepeats {
                        let t0 = clock.now
                        memset(target.baseAddress!, Int32(i & 0xFF), target.count)
                        memsetTimes.append(clock.now - t0)
                    }
                    destination.pixels.withUnsafeBytes { source in
                        for _ in 0..<kernelRepeats {
                            let t0 = clock.now
                            memcpy(target.baseAddress!, source.baseAddress!, target.count)
                            memcpyTimes.append(clock.now - t0)
                        }
                    }
                }
            }
        } catch {
            throw PerfkitError(.invalidInput, "\(input): \(error)", cause: error)
        }
        let resized = clock.now
        do {
            try PNG.write(
                scaled, to: output, compressionLevel: compression, filter: filter.pngFilter, threads: encodeThreads)
        } catch {
            throw PerfkitError(.cannotWrite, "\(output): \(error)", cause: error)
        }
        let written = clock.now
        if time {
            var line =
                "\(input): \(image.width)×\(image.height) → \(scaled.width)×\(scaled.height) \(image.format): "
                + "decode \(ms(decoded - start)) ms, scale \(ms(resized - decoded)) ms, "
                + "encode+write \(ms(written - resized)) ms, total \(ms(written - start)) ms"
            if !kernelTimes.isEmpty {
                func median(_ times: [Duration]) -> String { ms(times.sorted()[times.count / 2]) }
                line +=
                    "\nmedians of \(kernelRepeats): kernel \(median(kernelTimes)) ms, memset of output "
                    + "\(median(memsetTimes)) ms, memcpy of output \(median(memcpyTimes)) ms"
            }
            printError(line + "\n")
        }
    }

    func runBatch(outputDirectory: String, target: ScaleTarget) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw PerfkitError(.invalidInput, "\(outputDirectory): output directory does not exist")
        }
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw PerfkitError(.invalidInput, "\(path): no such file or directory")
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path)
                    .filter { $0.lowercased().hasSuffix(".png") && !$0.hasPrefix(".") }.sorted()
                found += names.map { (path as NSString).appendingPathComponent($0) }
            } else {
                found.append(path)
            }
        }
        let inputs = found
        let outputs = inputs.map {
            (outputDirectory as NSString).appendingPathComponent(($0 as NSString).lastPathComponent)
        }
        if let duplicate = Dictionary(grouping: outputs, by: { $0 }).first(where: { $0.value.count > 1 }) {
            throw PerfkitError(.invalidInput, "\(duplicate.key): several inputs have this name")
        }
        let progress = BatchProgress(total: inputs.count)
        let lanes = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, max(inputs.count, 1))
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: lanes) { _ in
            while let index = next.take(below: inputs.count) {
                do {
                    try scaleFile(input: inputs[index], output: outputs[index], target: target)
                    progress.finished(inputs[index], error: nil)
                } catch {
                    progress.finished(inputs[index], error: "\(error)")
                }
            }
        }
        let failures = progress.finish()
        if failures > 0 { throw PerfkitError(.invalidInput, "\(failures) of \(inputs.count) files failed") }
    }

    private func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = try? FileManager.default.attributesOfItem(atPath: a),
            let y = try? FileManager.default.attributesOfItem(atPath: b)
        else { return false }
        return x[.systemNumber] as? Int == y[.systemNumber] as? Int
            && x[.systemFileNumber] as? Int == y[.systemFileNumber] as? Int
    }

    private func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
    }
}

/// Hands out indices to the batch workers.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func take(below limit: Int) -> Int? {
        lock.withLock {
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

/// The batch's progress line on stderr (rewritten in place when stderr is a terminal) and its
/// error lines.
private final class BatchProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int
    private let interactive = isatty(2) != 0
    private var erase: String { interactive ? "\r\u{1B}[K" : "" }
    private var done = 0
    private var failures = 0

    init(total: Int) { self.total = total }

    func finished(_ path: String, error: String?) {
        lock.withLock {
            done += 1
            if let error {
                failures += 1
                printError("\(erase)\(error)\n")
            }
            if interactive { printError("\(erase)[\(done)/\(total)] \(path)") }
        }
    }

    /// Ends the progress line; returns the number of failed files.
    func finish() -> Int {
        lock.withLock {
            printError("\(erase)\(done - failures) of \(total) files scaled\n")
            return failures
        }
    }
}
