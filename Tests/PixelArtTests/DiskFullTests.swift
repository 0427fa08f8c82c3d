import Foundation
import PixelArt
import Testing

/// A write that runs out of space half-way (a 128 KiB tmpfs) leaves the old file as it was and no
/// temporary file, and says so. Mounting needs root; elsewhere the test is skipped, not passed.
@Suite("Disk full")
struct DiskFullTests {
    static var canMount: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(.enabled(if: canMount, "needs root to mount a tmpfs"))
    func aFullDiskKeepsTheOldFileAndLeavesNothingBehind() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pixelart-full-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard try run(["/bin/mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", directory.path]) == 0 else {
            Issue.record("mount -t tmpfs failed although running as root")
            return
        }
        defer { _ = try? run(["/bin/umount", directory.path]) }
        let path = directory.appendingPathComponent("out.png").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))

        // Noise compresses badly: ~1 MB of PNG, far beyond the 128 KiB.
        var state: UInt64 = 7
        let pixels = (0..<(512 * 512 * 4)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = try Image(width: 512, height: 512, format: try PixelFormat(.rgba, bitDepth: 8), pixels: pixels)
        #expect {
            try PNG.write(image, to: path)
        } throws: { error in
            "\(error)".contains("No space left on device")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }
}
