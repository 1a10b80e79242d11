import AddressPolicy
import HTTPServer
import Hummingbird
import Logging
import Synchronization

/// `/metrics`, `/healthz` and `/readyz` on an `HTTPListener` (Hummingbird). Started before the
/// service reaches its database, so health checks are answered while it connects.
public struct MetricsServer: Sendable {
    public let address: ListenAddress
    let listener: HTTPListener
    private let exposition: @Sendable () -> String
    private let readiness: @Sendable () -> Readiness
    private let logger: Logger

    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// - Parameters:
    ///   - requestTimeout: a connection idle this long (nothing sent, or half a request) is closed.
    ///   - maxConnections: connections open at once; more wait in the kernel's backlog.
    ///   - readiness: called for each `/readyz`; must be quick (read remembered state, e.g.
    ///     ``ReadinessTracker/current(now:)``).
    public init(address: ListenAddress, requestTimeout: Duration = .seconds(2), maxConnections: Int = 64,
                logger: Logger = Logger(label: "pulse.metrics"),
                exposition: @escaping @Sendable () -> String,
                readiness: @escaping @Sendable () -> Readiness) {
        self.address = address
        listener = HTTPListener(host: address.host, port: Int(address.port), maxConnections: maxConnections,
                                idleTimeout: requestTimeout, maxHeaderBytes: 8 * 1024)
        self.logger = logger
        self.exposition = exposition
        self.readiness = readiness
    }

    public init(address: ListenAddress, metrics: PulseMetrics, logger: Logger = Logger(label: "pulse.metrics"),
                readiness: @escaping @Sendable () -> Readiness) {
        self.init(address: address, logger: logger, exposition: { metrics.exposition() }, readiness: readiness)
    }

    /// A server serving in a task of its own.
    public struct Running: Sendable {
        /// The port bound (the kernel's choice for port 0).
        public let port: Int
        let task: Task<Void, Never>

        /// Stops accepting, lets requests in progress finish (3 s at most) and returns once the
        /// listener and its connections are closed.
        public func stop() async {
            task.cancel()
            await task.value
        }
    }

    /// Binds and starts serving; returns once bound, or throws why it could not bind.
    public func start() async throws -> Running {
        let (bound, boundContinuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let task = Task.detached { [self] in
            let serving = ServingFlag()
            do {
                try await listener.run(logger: logger, onBound: { port in
                    serving.value.store(true, ordering: .relaxed)
                    boundContinuation.yield(.success(port))
                }, respond: { request in respond(method: request.method, path: request.uri.path) })
            } catch {
                if serving.value.load(ordering: .relaxed) {
                    logger.error("metrics endpoint stopped", metadata: ["error": "\(error)"])
                }
                boundContinuation.yield(.failure(error))
            }
            boundContinuation.finish()
        }
        var outcomes = bound.makeAsyncIterator()
        guard let outcome = await outcomes.next() else { throw CancellationError() }
        let port = try outcome.get()
        if !address.isLoopback {
            logger.warning("metrics endpoint bound to a non-loopback address; anyone who can reach it can read metrics",
                           metadata: ["address": "\(address)"])
        } else {
            logger.info("metrics endpoint listening", metadata: ["address": "\(address.host):\(port)"])
        }
        return Running(port: port, task: task)
    }

    func respond(method: HTTPRequest.Method, path: String) -> Response {
        guard method == .get || method == .head else {
            var refused = HTTPListener.plain(.methodNotAllowed, "method not allowed\n")
            refused.headers[.allow] = "GET, HEAD"
            return refused
        }
        let response: Response
        switch path {
        case "/metrics":
            response = HTTPListener.plain(.ok, exposition(), contentType: Self.metricsContentType)
        case "/healthz":
            response = HTTPListener.plain(.ok, "ok\n")
        case "/readyz":
            let status = readiness()
            let reason = LogSanitizer.cap(LogSanitizer.clean(status.reason), maxBytes: 1024)
            response = HTTPListener.plain(status.isReady ? .ok : .serviceUnavailable, reason + "\n")
        default:
            response = HTTPListener.plain(.notFound, "not found\n")
        }
        var answer = method == .head ? response.createHeadResponse() : response
        answer.headers[.cacheControl] = "no-store"
        answer.headers[.xContentTypeOptions] = "nosniff"
        return answer
    }
}

/// Whether the listener got as far as serving (a failure after that is logged, not returned).
private final class ServingFlag: Sendable {
    let value = Atomic(false)
}
