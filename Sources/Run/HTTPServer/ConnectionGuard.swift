import NIOCore
import NIOHTTPTypes
import Synchronization

/// What a listener facing strangers allows one connection: a head must arrive within
/// `headerTimeout` of the connection (or of the previous answer), a body may pause at most
/// `bodyIdleTimeout` between bytes and must be complete within `requestTimeout` of its head, and
/// one client address may hold at most `perClient` connections.
public struct ConnectionLimits: Sendable {
    public var headerTimeout: Duration
    public var bodyIdleTimeout: Duration
    public var requestTimeout: Duration
    public var perClient: Int

    public init(headerTimeout: Duration, bodyIdleTimeout: Duration, requestTimeout: Duration, perClient: Int) {
        self.headerTimeout = headerTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        self.requestTimeout = requestTimeout
        self.perClient = max(1, perClient)
    }
}

/// Connections open per client address, shared by every connection of one listener.
final class ClientTable: Sendable {
    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `client`; false (and nothing counted) when it already holds `limit`.
    func enter(_ client: String) -> Bool {
        open.withLock { table in
            let held = table[client, default: 0]
            guard held < limit else { return false }
            table[client] = held + 1
            return true
        }
    }

    func leave(_ client: String) {
        open.withLock { table in
            let held = table[client, default: 1] - 1
            table[client] = held > 0 ? held : nil
        }
    }
}

/// Enforces `ConnectionLimits` on one connection, between the HTTP decoder and Hummingbird's
/// handling. Written by hand: Hummingbird's only timer is an idle timeout, which a client sending
/// a byte a second never trips, and it has no per-client cap. An answer that carries
/// `Connection: close` closes the connection once written, so a refused request's body is never read.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let clients: ClientTable
    private var client: String?
    private var admitted = false
    /// Between a request's head and its end.
    private var reading = false
    /// Between a request's head and the end of its answer: the application is working.
    private var answering = false
    private var closeAfterAnswer = false
    private var requestDeadline = NIODeadline.distantFuture
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, clients: ClientTable) {
        self.limits = limits
        self.clients = clients
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            reading = true
            answering = true
            requestDeadline = .now() + Self.amount(limits.requestTimeout)
        case .body:
            break
        case .end:
            reading = false
        }
        arm(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            if response.headerFields[.connection]?.lowercased() == "close" { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            answering = false
            if closeAfterAnswer {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
                return
            }
            context.write(data, promise: promise)
            arm(context)
        }
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard clients.enter(address) else {
            context.close(promise: nil)
            return
        }
        client = address
        arm(context)
    }

    private func release() {
        timer?.cancel()
        timer = nil
        if let client { clients.leave(client) }
        client = nil
    }

    /// The one deadline that applies now: the body's while reading, none while the application
    /// answers, else the next head's.
    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        let deadline: NIODeadline
        if reading {
            deadline = min(.now() + Self.amount(limits.bodyIdleTimeout), requestDeadline)
        } else if answering {
            return
        } else {
            deadline = .now() + Self.amount(limits.headerTimeout)
        }
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) {
            context.close(promise: nil)
        }
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        let parts = duration.components
        return .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }
}
