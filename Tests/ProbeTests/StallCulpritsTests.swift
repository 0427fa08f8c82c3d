import Testing

@testable import Probe

@Suite struct StallCulpritsTests {
    @Test(arguments: [
        (
            "watched_service.blockTheEventLoop(milliseconds: Swift.Int) -> () <- partial apply forwarder for closure #1 @Sendable () -> () in watched_service.makeRouter(group: NIOCore.EventLoopGroup) -> ()",
            "watched_service.blockTheEventLoop(milliseconds:)"
        ),
        (
            "(1) suspend resume partial function for closure #1 () async -> () in closure #1 (inout Swift.TaskGroup<()>) async -> () in watched_service.starveTheCooperativePool(milliseconds: Swift.Int) async -> ()",
            "watched_service.starveTheCooperativePool(milliseconds:)"
        ),
        (
            "closure #1 @Sendable (HummingbirdCore.Request, watched_service.LoopRequestContext) async throws -> Swift.String in watched_service.makeRouter(group: NIOCore.EventLoopGroup, registry: Prometheus.PrometheusCollectorRegistry) -> Hummingbird.Router<watched_service.LoopRequestContext>",
            "watched_service.makeRouter(group:registry:)"
        ),
        (
            "App.checksum(_: Swift.Array<Swift.UInt8>) -> Swift.UInt64 <- App.Handler.handle() -> ()",
            "App.checksum(_:)"
        ),
        ("App.Cache<A>.lookup(key: A, default: (A) -> B) -> Swift.Optional<B>", "App.Cache<A>.lookup(key:default:)"),
        ("App.Handler.handle() -> ()", "App.Handler.handle()"),
        ("(2) await resume partial function for App.load(id: Swift.Int) async throws -> App.Row", "App.load(id:)"),
        ("libfoo.so+0x1234", "libfoo.so+0x1234"),
        ("no-stack", "unknown"),
    ])
    func theInnermostFunctionWithItsLabels(groupKey: String, culprit: String) {
        #expect(StallCulprits.shortName(groupKey: groupKey) == culprit)
    }

    @Test func theFirstDistinctCulpritsKeepTheirNameTheRestAreOther() {
        let culprits = StallCulprits(limit: 2)
        #expect(culprits.label(groupKey: "A.f() -> ()") == "A.f()")
        #expect(culprits.label(groupKey: "A.g() -> ()") == "A.g()")
        #expect(culprits.label(groupKey: "A.h() -> ()") == "other")
        #expect(culprits.label(groupKey: "A.f() -> () <- A.main() -> ()") == "A.f()")
        #expect(culprits.label(groupKey: "no-stack") == "unknown", "not one of the named")
    }

    @Test func aLongNameIsCut() {
        let name = "App." + String(repeating: "x", count: 300) + "() -> ()"
        #expect(StallCulprits.shortName(groupKey: name).count == 160)
    }
}
