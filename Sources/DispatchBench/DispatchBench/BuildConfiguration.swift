/// How the binary under test was built; verdicts about the optimizer only mean something at -O.
enum BuildConfiguration {
    #if DEBUG
        static let isOptimized = false
        static let note =
            "debug build (-Onone, no whole-module optimisation): compiled forms are not what a release build does"
    #else
        static let isOptimized = true
        static let note = "release build (-O, whole-module optimisation)"
    #endif
}
