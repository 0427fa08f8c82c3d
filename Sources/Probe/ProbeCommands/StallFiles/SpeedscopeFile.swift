import Foundation
import PerfReport
import ProbeRecords

/// speedscope's own file format (https://www.speedscope.app/file-format-schema.json, specified
/// in jlfwong/speedscope's `src/lib/file-format-spec.ts`): frames shared by every profile, and
/// "sampled" profiles whose samples are stacks of frame indices, root first, each with a weight.
/// Here a sample is a distinct path of the call trees and its weight the samples that ended
/// there, so the profile is already aggregated: speedscope's "Left Heavy" and "Sandwich" views
/// are exact; its "Time Order" view shows the paths in call-tree order, not in time.
struct SpeedscopeFile: Encodable {
    static let schemaURL = "https://www.speedscope.app/file-format-schema.json"

    struct Frame: Encodable {
        var name: String
        var file: String?
        var line: Int?
    }

    struct Shared: Encodable {
        var frames: [Frame]
    }

    struct Profile: Encodable {
        var type = "sampled"
        var name: String
        /// Weights count samples, which have no unit speedscope knows.
        var unit = "none"
        var startValue = 0
        var endValue: Int
        var samples: [[Int]]
        var weights: [Int]
    }

    var schema = SpeedscopeFile.schemaURL
    var shared: Shared
    var profiles: [Profile]
    var name: String
    var activeProfileIndex = 0
    /// speedscope recommends `name@version`.
    var exporter = "perfkit@\(perfkitVersion)"

    private enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case shared, profiles, name, activeProfileIndex, exporter
    }

    /// One profile per named set of paths; a frame that occurs in several is listed once.
    init(name: String, profiles named: [(name: String, paths: SampledPaths)]) {
        var frames: [Frame] = []
        var frameIndices: [ProfileFrame: Int] = [:]
        func index(of frame: ProfileFrame) -> Int {
            if let index = frameIndices[frame] { return index }
            frameIndices[frame] = frames.count
            frames.append(Frame(name: frame.name, file: frame.file, line: frame.line))
            return frames.count - 1
        }
        profiles = named.map { profile in
            let shared = profile.paths.frames.map(index)
            return Profile(
                name: profile.name, endValue: profile.paths.total,
                samples: profile.paths.paths.map { $0.map { shared[$0] } }, weights: profile.paths.weights)
        }
        shared = Shared(frames: frames)
        self.name = name
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
