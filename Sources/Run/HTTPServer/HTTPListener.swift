import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The one way this service listens for HTTP: Hummingbird's HTTP/1.1 server (SwiftNIO) with the
/// limits every listener here needs, used by the metrics endpoint and the WebSub callback.
/// Headers, connections and time are capped: a client that connects and sends nothing, or half a
/// request head, is closed after `limits.headerTimeout` (`ConnectionGuard`); one address holds at
/// most `limits.perClient` connections; at `maxConnections` new connections wait in the kernel's
/// backlog until one closes.
public struct HTTPListener: Sendable {
    public var host: String
    public var port: Int
    public var maxConnections: Int
    public var limits: ConnectionLimits
    public var maxHeaderBytes: Int
    public var maxHeaderCount = 64

    public init(host: String, port: Int, maxConnections: Int, limits: ConnectionLimits, maxHeaderBytes: Int) {
        self.host = host
        self.port = port
        self.maxConnections = max(1, maxConnections)
        self.limits = limits
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Every deadline `timeout` and no per-client cap: the metrics endpoint's limits. (A cap equal
    /// to the connection cap would refuse the connection accepted in the instant between one
    /// closing and its count being given back: seen as a reset health check.)
    public init(host: String, port: Int, maxConnections: Int, idleTimeout: Duration, maxHeaderBytes: Int) {
        self.init(host: host, port: port, maxConnections: maxConnections,
                  limits: ConnectionLimits(headerTimeout: idleTimeout, bodyIdleTimeout: idleTimeout,
                                           requestTimeout: idleTimeout, perClient: .max),
                  maxHeaderBytes: maxHeaderBytes)
    }

    /// Serves until the task is cancelled, then drains; throws when it cannot bind. `onBound` is
    /// told the port (useful with port 0).
    public func run(logger: Logger, onBound: @escaping @Sendable (Int) -> Void = { _ in },
                    respond: @escaping @Sendable (Request) async -> Response) async throws {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in await respond(request) }
        let limits = self.limits
        let clients = ClientTable(limit: limits.perClient)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, clients: clients)],
            idleTimeout: ConnectionGuard.amount(max(limits.headerTimeout, limits.requestTimeout)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: maxHeaderBytes, maxHeaderListSize: maxHeaderBytes,
                                            maxHeaderFieldCount: maxHeaderCount))
        // Hummingbird's and the service group's own lines (start-up, shutdown) only at critical;
        // each listener logs its decisions on `logger` itself.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .critical)
        let app = Application(
            responder: responder, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(maxConnections)),
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(Self.eventLoops), logger: quiet)
        // Cancelling a NIO server while it accepts a connection traps the process (swift-nio#2637:
        // an accepted channel that nobody reads is deinited unfinished; seen once in 20 test runs),
        // so the caller's cancellation becomes a graceful shutdown, which stops accepting first.
        // Connections still open after `drainLimit` are then cancelled.
        var configuration = ServiceGroupConfiguration(services: [app], logger: quiet)
        configuration.maximumGracefulShutdownDuration = Self.drainLimit
        let group = ServiceGroup(configuration: configuration)
        let serving = Task { try await group.run() }  // not a child task: cancellation must not reach it
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// One event-loop thread for every listener of the process: NIO's default group has a thread
    /// per core, and scrapes and hub callbacks are a few requests a minute.
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// How long a stop waits for requests in progress.
    static let drainLimit: Duration = .seconds(3)

    /// A `text/plain` answer.
    public static func plain(_ status: HTTPResponse.Status, _ text: String,
                             contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: contentType],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A `text/plain` answer after which the connection is closed: what is left of the request's
    /// body is never read.
    public static func closing(_ status: HTTPResponse.Status, _ text: String, retryAfter: Int? = nil) -> Response {
        var response = plain(status, text)
        response.headers[.connection] = "close"
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
