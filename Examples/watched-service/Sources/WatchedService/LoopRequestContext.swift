import Hummingbird
import NIOCore

/// The request context with the event loop of the request's connection, which /block and
/// /sleep stall unless `loop=I` names another.
struct LoopRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        eventLoop = source.channel.eventLoop
    }
}
