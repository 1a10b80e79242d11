import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

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

    /// This listener serving `router`, as a `Service` of the process's one ServiceGroup: it binds
    /// when the group starts it (throwing `ListenError`, which names the address, when it cannot),
    /// tells `onBound` the port (the kernel's choice for port 0), and on graceful shutdown stops
    /// accepting and lets the requests in progress finish (each is bounded by `limits`). It is
    /// never to be cancelled while it serves: cancelling a NIO server while it accepts a
    /// connection traps the process (swift-nio#2637: an accepted channel nobody reads is deinited
    /// unfinished), so the group stops it gracefully.
    public func service(router: Router<BasicRequestContext>, logger: Logger,
                        onBound: @escaping @Sendable (Int) -> Void = { _ in }) -> Listening {
        let limits = self.limits
        // One table for the listener: the handlers are made per connection.
        let clients = ClientTable(limit: limits.perClient)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(limits: limits, clients: clients)],
            idleTimeout: ConnectionGuard.amount(max(limits.headerTimeout, limits.requestTimeout)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: maxHeaderBytes, maxHeaderListSize: maxHeaderBytes,
                                            maxHeaderFieldCount: maxHeaderCount))
        // Hummingbird's own lines (start-up, shutdown) only at critical; each listener logs its
        // decisions on `logger` itself.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .critical)
        let bound = BoundFlag()
        let application = Application(
            router: router, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(maxConnections)),
            onServerRunning: { channel in
                bound.value.store(true, ordering: .relaxed)
                onBound(channel.localAddress?.port ?? 0)
            },
            eventLoopGroupProvider: .shared(Self.eventLoops), logger: quiet)
        return Listening(application: application, address: "\(host):\(port)", bound: bound)
    }

    /// One event-loop thread for every listener of the process: NIO's default group has a thread
    /// per core, and scrapes and hub callbacks are a few requests a minute.
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

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

/// A bound-or-failed HTTP listener run by a ServiceGroup (`HTTPListener.service`).
public struct Listening: Service {
    let application: Application<RouterResponder<BasicRequestContext>>
    let address: String
    let bound: BoundFlag

    public func run() async throws {
        do {
            try await application.run()
        } catch where !bound.value.load(ordering: .relaxed) {
            throw ListenError(address: address, reason: "\(error)")
        }
    }
}

/// Whether the listener got as far as serving (a failure after that is not a bind failure).
final class BoundFlag: Sendable {
    let value = Atomic(false)
}

/// The listener could not bind its address.
public struct ListenError: Error, CustomStringConvertible {
    public let address: String
    public let reason: String
    public var description: String { "cannot listen on \(address): \(reason)" }
}

/// Answers what no route matches with `answer` instead of Hummingbird's 404 error (which keeps
/// the connection and so reads a body nobody asked for).
public struct UnmatchedRoute<Context: RequestContext>: RouterMiddleware {
    let answer: @Sendable (Request) -> Response

    public init(answer: @escaping @Sendable (Request) -> Response) { self.answer = answer }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return answer(request)
        }
    }
}
