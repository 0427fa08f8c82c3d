/// What `--store` names: a file path, or a URL ("postgresql://ci:secret@db/perf") whose password
/// must never reach a message, a log line or a report.
@_spi(Tooling) public enum StoreLocation {
    /// The lowercased scheme of a URL ("postgresql" for "postgresql://…"); nil for a file path.
    public static func scheme(of location: String) -> String? {
        guard let separator = location.range(of: "://") else { return nil }
        let scheme = location[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// `location` with a URL's password replaced by "***", in the user part and in a `password=`
    /// parameter; a file path unchanged.
    ///
    /// The user part ends at the last "@" before the query rather than at the first "/", so that a
    /// password with an unescaped "/" or "@" is still hidden whole (a database name with an "@" in
    /// it is hidden too: too much hidden is harmless, too little is not).
    public static func redacted(_ location: String) -> String {
        guard scheme(of: location) != nil, let separator = location.range(of: "://") else { return location }
        let rest = location[separator.upperBound...]
        let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
        var beforeQuery = String(rest[..<queryStart])
        if let at = beforeQuery.lastIndex(of: "@"), let colon = beforeQuery[..<at].firstIndex(of: ":") {
            beforeQuery = beforeQuery[...colon] + "***" + beforeQuery[at...]
        }
        var query = ""
        if queryStart < rest.endIndex {
            let parameters = rest[rest.index(after: queryStart)...].split(
                separator: "&", omittingEmptySubsequences: false)
            query =
                "?"
                + parameters.map { parameter in
                    let name = parameter.prefix { $0 != "=" }
                    return name.lowercased() == "password" && name.count < parameter.count ? "\(name)=***" : parameter
                }.joined(separator: "&")
        }
        return String(location[..<separator.upperBound]) + beforeQuery + query
    }
}
