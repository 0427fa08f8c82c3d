import PackagePlugin

/// The plugin's command line, read with PackagePlugin's `ArgumentExtractor`: the options the plugin
/// acts on are taken out, the rest goes to the benchmark executables as given.
struct PluginArguments {
    private var extractor: ArgumentExtractor
    /// `--` and what follows: ArgumentExtractor leaves these alone but drops the `--` itself, which
    /// an executable needs to read an argument that starts with `-` as a path.
    private let literals: [String]

    init(_ arguments: [String]) {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        extractor = ArgumentExtractor(Array(arguments[..<end]))
        literals = Array(arguments[end...])
    }

    /// The values of every `--name VALUE` and `--name=VALUE`, taken out.
    mutating func values(of name: String) throws -> [String] {
        // ArgumentExtractor drops a last `--name` without a value; an executable would refuse it.
        if extractor.remainingArguments.last == "--\(name)" { throw PluginFailure("--\(name): missing value") }
        return extractor.extractOption(named: name)
    }

    /// Every `--name VALUE` of these names, taken out, to pass on to one command only.
    mutating func take(_ names: [String]) throws -> [String] {
        var taken: [String] = []
        for name in names {
            taken += try values(of: name).flatMap { ["--\(name)", $0] }
        }
        return taken
    }

    /// What was not taken out, in its order, `--` and what follows it included.
    var remaining: [String] { extractor.remainingArguments + literals }
}
