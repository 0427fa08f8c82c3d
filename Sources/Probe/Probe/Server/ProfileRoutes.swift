import Foundation

/// What a request asks ``ProfileServer`` for: Go's net/http/pprof routes, so that `go tool pprof`,
/// Pyroscope and Parca scrape Probe as they scrape a Go service.
package enum ProfileRoute: Equatable {
    case index
    case health
    /// `/debug/pprof/profile`: answered from a thread of its own, one at a time.
    case profile(ProfileRequest)
    /// `/debug/pprof/goroutine?debug=2`.
    case threadDumpText
    /// `/debug/pprof/goroutine` (`debug=0` or none).
    case threadDumpProfile
    /// `/debug/pprof/flight`: the running ``FlightRecorder``'s samples.
    case flight
    /// `/debug/pprof/heap` (`allocations` false: in-use space by default) and `/debug/pprof/allocs`
    /// (true: allocated space by default): the running heap profiler's samples (ProbeHeap).
    case heap(allocations: Bool)

    /// Go's default `seconds` for `/debug/pprof/profile`.
    package static let defaultSeconds = 30
    package static let defaultRate = 100

    /// The route of a parsed request, or the error to answer: 405 for a method other than GET, 401
    /// for a missing or wrong bearer token (every route but `/health`), 404, 400 naming a bad parameter.
    package static func resolve(
        _ request: ProfileHTTP.Request, bearerToken: String?, longestProfile: Duration
    ) -> Result<ProfileRoute, ProfileHTTP.ResponseError> {
        let path = request.path == "/debug/pprof" ? "/debug/pprof/" : request.path
        let known = [
            "/debug/pprof/", "/debug/pprof/profile", "/debug/pprof/goroutine", "/debug/pprof/flight",
            "/debug/pprof/heap", "/debug/pprof/allocs", "/health",
        ]
        guard known.contains(path) else { return .failure(.init(404, "no route \(request.path)")) }
        guard request.method == "GET" else {
            return .failure(.init(405, "method \(request.method) not allowed on \(path): GET only"))
        }
        if path == "/health" { return .success(.health) }
        if let bearerToken, !authorized(request.headers["authorization"], token: bearerToken) {
            return .failure(.init(401, "missing or wrong bearer token (Authorization: Bearer <token>)"))
        }
        switch path {
        case "/debug/pprof/profile":
            return profileRequest(request.query, longestProfile: longestProfile).map(Self.profile)
        case "/debug/pprof/goroutine":
            switch request.query["debug"] {
            case nil, "0": return .success(.threadDumpProfile)
            case "2": return .success(.threadDumpText)
            case let other?: return .failure(.init(400, "debug=\(other): not served (0 for pprof, 2 for text)"))
            }
        case "/debug/pprof/flight": return .success(.flight)
        case "/debug/pprof/heap", "/debug/pprof/allocs":
            return heapRequest(request.query).map { .heap(allocations: path.hasSuffix("allocs")) }
        default: return .success(.index)
        }
    }

    /// `seconds` (default 30, 1 up to the cap), `rate` (default 100, within ``ProfileRequest/rates``)
    /// and `mode` (`cpu` or `wall`): whole decimal numbers only, so `1e9` and `-1` are refused, not read;
    /// `kind` a comma-separated list of thread kinds (`event-loop`, `pool`, `other`), `thread` one of
    /// thread-name prefixes (`NIO-ELT,worker`).
    static func profileRequest(
        _ query: [String: String], longestProfile: Duration
    ) -> Result<ProfileRequest, ProfileHTTP.ResponseError> {
        let longest = Int(longestProfile.components.seconds)
        var seconds = defaultSeconds
        if let text = query["seconds"] {
            guard let value = wholeNumber(text) else {
                return .failure(.init(400, "seconds=\(text): not a whole number of seconds"))
            }
            guard value >= 1 else { return .failure(.init(400, "seconds=\(text): must be at least 1")) }
            guard value <= longest else {
                return .failure(.init(400, "seconds=\(text): longer than the longest profile, \(longest) s"))
            }
            seconds = value
        } else if defaultSeconds > longest {
            seconds = longest
        }
        var rate = defaultRate
        if let text = query["rate"] {
            guard let value = wholeNumber(text) else {
                return .failure(.init(400, "rate=\(text): not a whole number of samples a second"))
            }
            guard ProfileRequest.rates.contains(value) else {
                let rates = ProfileRequest.rates
                return .failure(.init(400, "rate=\(text): must be \(rates.lowerBound) to \(rates.upperBound) Hz"))
            }
            rate = value
        }
        var mode = ProfileRequest.Mode.cpu
        if let text = query["mode"] {
            guard let value = ProfileRequest.Mode(rawValue: text) else {
                return .failure(.init(400, "mode=\(text): unknown mode (cpu or wall)"))
            }
            mode = value
        }
        var threadKinds: Set<ProfileRequest.ThreadKind>?
        if let text = query["kind"] {
            var kinds = Set<ProfileRequest.ThreadKind>()
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = ProfileRequest.ThreadKind(rawValue: String(part)) else {
                    return .failure(.init(400, "kind=\(text): unknown thread kind (event-loop, pool, other)"))
                }
                kinds.insert(kind)
            }
            threadKinds = kinds
        }
        var threadNames: [String]?
        if let text = query["thread"] {
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !names.contains(where: \.isEmpty) else {
                return .failure(.init(400, "thread=\(text): an empty name (a comma-separated list of name prefixes)"))
            }
            threadNames = names
        }
        return .success(
            ProfileRequest(
                duration: .seconds(seconds), rate: rate, mode: mode, threadKinds: threadKinds, threadNames: threadNames)
        )
    }

    /// Go's heap routes take `gc` (a collection first: Swift has none, so any value is accepted and
    /// changes nothing) and `debug=0`; anything else is refused by name rather than ignored.
    static func heapRequest(_ query: [String: String]) -> Result<Void, ProfileHTTP.ResponseError> {
        if let debug = query["debug"], debug != "0" {
            return .failure(.init(400, "debug=\(debug): not served (0 for pprof)"))
        }
        let unknown = query.keys.filter { $0 != "gc" && $0 != "debug" }.sorted()
        guard unknown.isEmpty else {
            return .failure(
                .init(400, "unknown parameter \(unknown.joined(separator: ", ")) (heap profiles take gc and debug=0)"))
        }
        return .success(())
    }

    /// Digits only (at most 9, so no overflow): `+5`, `-1`, `1e9`, `0x10` and ` 5` are not numbers here.
    private static func wholeNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    /// `Bearer <token>`, compared in time independent of where the first difference is.
    static func authorized(_ header: String?, token: String) -> Bool {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return false }
        let given = Array(header.dropFirst(7).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    /// The index page: the routes and their parameters, as text.
    static let indexText = """
        Probe profiles (Go net/http/pprof compatible routes)

        /debug/pprof/profile?seconds=30&rate=100&mode=cpu  whole-process profile, gzipped pprof (mode cpu or wall;
                                                           kind=event-loop,pool,other and thread=<name prefix>,…
                                                           limit the threads)
        /debug/pprof/goroutine?debug=2                     every thread's current stack, then every Swift task
                                                           (await site and callers, alike ones ×N), text
        /debug/pprof/goroutine?debug=0                     the same stacks and tasks, gzipped pprof
        /debug/pprof/flight                                the flight recorder's recent cpu samples, gzipped pprof
        /debug/pprof/heap                                  sampled allocations in use, by Swift type and stack (ProbeHeap)
        /debug/pprof/allocs                                the same profile, allocated space by default
        /health                                            ok

        """
}
