import AddressPolicy
import HTTPServer
import Hummingbird
import Logging
import ServiceLifecycle

/// `/metrics`, `/healthz` and `/readyz` on an `HTTPListener` (Hummingbird). Started before the
/// service reaches its database, so health checks are answered while it connects: a `Service`
/// listed first in the process's group, so it is stopped last.
public struct MetricsServer: Service {
    public let address: ListenAddress
    let listener: HTTPListener
    private let exposition: @Sendable () -> String
    private let readiness: @Sendable () -> Readiness
    private let logger: Logger
    private let onBound: @Sendable (Int) -> Void

    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// - Parameters:
    ///   - requestTimeout: a connection idle this long (nothing sent, or half a request) is closed.
    ///   - maxConnections: connections open at once; more wait in the kernel's backlog.
    ///   - readiness: called for each `/readyz`; must be quick (read remembered state, e.g.
    ///     ``ReadinessTracker/current(now:)``).
    public init(address: ListenAddress, requestTimeout: Duration = .seconds(2), maxConnections: Int = 64,
                logger: Logger = Logger(label: "pulse.metrics"),
                exposition: @escaping @Sendable () -> String,
                readiness: @escaping @Sendable () -> Readiness, onBound: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.address = address
        listener = HTTPListener(host: address.host, port: Int(address.port), maxConnections: maxConnections,
                                idleTimeout: requestTimeout, maxHeaderBytes: 8 * 1024)
        self.logger = logger
        self.exposition = exposition
        self.readiness = readiness
        self.onBound = onBound
    }

    public init(address: ListenAddress, metrics: PulseMetrics, logger: Logger = Logger(label: "pulse.metrics"),
                readiness: @escaping @Sendable () -> Readiness, onBound: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.init(address: address, logger: logger, exposition: { metrics.exposition() }, readiness: readiness,
                  onBound: onBound)
    }

    /// Binds (throwing `ListenError` when it cannot) and serves until the group's graceful
    /// shutdown; `onBound` is told the port (the kernel's choice for port 0).
    public func run() async throws {
        let address = self.address, logger = self.logger, onBound = self.onBound
        let listening = listener.service(router: router(), logger: logger, onBound: { port in
            if !address.isLoopback {
                logger.warning("metrics endpoint bound to a non-loopback address; anyone who can reach it can read metrics",
                               metadata: ["address": "\(address)"])
            } else {
                logger.info("metrics endpoint listening", metadata: ["address": "\(address.host):\(port)"])
            }
            onBound(port)
        })
        do {
            try await listening.run()
        } catch let error as ListenError {
            throw error
        } catch {
            // Once serving, a failure of the endpoint is logged and the service goes on without it.
            logger.error("metrics endpoint stopped", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
        }
    }

    /// GET and HEAD of the three paths; any other method is 405, any other path 404, and no
    /// answer is cached or sniffed.
    func router() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: MetricsAnswers())
        router.add(middleware: UnmatchedRoute { request in
            let notFound = HTTPListener.plain(.notFound, "not found\n")
            return request.method == .head ? notFound.createHeadResponse() : notFound
        })
        let exposition = self.exposition, readiness = self.readiness
        router.get("/metrics") { _, _ in HTTPListener.plain(.ok, exposition(), contentType: Self.metricsContentType) }
        router.get("/healthz") { _, _ in HTTPListener.plain(.ok, "ok\n") }
        router.get("/readyz") { _, _ in
            let status = readiness()
            let reason = LogSanitizer.cap(LogSanitizer.clean(status.reason), maxBytes: 1024)
            return HTTPListener.plain(status.isReady ? .ok : .serviceUnavailable, reason + "\n")
        }
        return router
    }
}

/// 405 for a method other than GET and HEAD; `no-store` and `nosniff` on everything else.
struct MetricsAnswers: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            var refused = HTTPListener.plain(.methodNotAllowed, "method not allowed\n")
            refused.headers[.allow] = "GET, HEAD"
            return refused
        }
        var answer = try await next(request, context)
        answer.headers[.cacheControl] = "no-store"
        answer.headers[.xContentTypeOptions] = "nosniff"
        return answer
    }
}
