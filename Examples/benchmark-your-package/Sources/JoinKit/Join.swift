/// Joins words with commas by appending to a new string each time: a copy of everything so far per word.
public func naiveJoin(_ words: [String]) -> String {
    var joined = ""
    for word in words { joined = joined + word + "," }
    return joined
}

/// Joins words with commas in one pass.
public func join(_ words: [String]) -> String {
    #if JOINKIT_INJECT_REGRESSION
        // Compiled in only for CI's check that the baseline gate catches a regression: the slow path.
        return naiveJoin(words)
    #else
        return words.joined(separator: ",")
    #endif
}
