/// Splits a comma-joined line back into its words, without copying them.
public func split(_ line: String) -> [Substring] {
    line.split(separator: ",", omittingEmptySubsequences: false)
}
