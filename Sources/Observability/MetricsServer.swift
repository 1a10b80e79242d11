#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import Threads

public enum MetricsServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyStarted
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .alreadyStarted: "metrics server already started"
        case .system(let call, let code): "metrics server \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// `/metrics`, `/healthz` and `/readyz` over plain POSIX sockets on one dedicated thread that
/// serves every connection at once (see `ConnectionLoop`: non-blocking sockets, per-connection
/// deadlines, a cap that evicts idle connections).
///
/// Hand-written rather than Hummingbird (which the package mirror has): three GET routes do not
/// justify SwiftNIO. An earlier session measured a Hummingbird version of this endpoint: release
/// build 36 s -> 162 s, stripped binary 2.4 -> 10.2 MB, 16 more packages, and its connection cap
/// did not evict idle connections, which is the failure this server must survive.
public final class MetricsServer: Sendable {
    public let address: MetricsAddress
    public let requestTimeout: Duration
    /// Connections open at once; one more evicts the longest-idle one.
    public let maxConnections: Int
    private let evictions = Atomic<Int>(0)
    private let exposition: @Sendable () -> String
    private let readiness: @Sendable () -> Readiness
    private let logger: Logger

    private struct Running {
        var listenFD: Int32
        var wakeWriteFD: Int32
        var finished: DispatchSemaphore
        var port: UInt16
    }
    private let running = Mutex<Running?>(nil)

    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// - Parameter readiness: called on the server thread for each `/readyz`; must be quick
    ///   (read remembered state, e.g. ``ReadinessTracker/current(now:)``).
    public init(address: MetricsAddress, requestTimeout: Duration = .seconds(2), maxConnections: Int = 64,
                logger: Logger = Logger(label: "pulse.metrics"),
                exposition: @escaping @Sendable () -> String,
                readiness: @escaping @Sendable () -> Readiness) {
        self.address = address
        self.requestTimeout = requestTimeout
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
        self.exposition = exposition
        self.readiness = readiness
    }

    public convenience init(address: MetricsAddress, metrics: PulseMetrics,
                            logger: Logger = Logger(label: "pulse.metrics"),
                            readiness: @escaping @Sendable () -> Readiness) {
        self.init(address: address, logger: logger, exposition: { metrics.exposition() }, readiness: readiness)
    }

    /// Connections closed so far to make room for a new one.
    public var evictedConnections: Int { evictions.load(ordering: .relaxed) }

    /// The port actually bound (useful with port 0); nil when not running.
    public var boundPort: UInt16? {
        running.withLock { $0?.port }
    }

    public func start() throws(MetricsServerError) {
        try running.withLock { (current: inout Running?) throws(MetricsServerError) in
            guard current == nil else { throw .alreadyStarted }
            let listenFD = try SocketOps.listeningSocket(for: address)
            var pipeFDs: [Int32] = [-1, -1]
            guard pipe(&pipeFDs) == 0 else {
                let code = errno
                close(listenFD)
                throw .system(call: "pipe", errno: code)
            }
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            let port = SocketOps.localPort(of: listenFD) ?? address.port
            let finished = DispatchSemaphore(value: 0)
            current = Running(listenFD: listenFD, wakeWriteFD: pipeFDs[1], finished: finished, port: port)
            let wakeReadFD = pipeFDs[0]
            DetachedThread.start(name: "pulse-metrics-http") { [self] in
                var loop = ConnectionLoop(listenFD: listenFD, wakeFD: wakeReadFD, requestTimeout: requestTimeout,
                                          maxConnections: maxConnections,
                                          respond: { head in
                                              guard let head else {
                                                  return MiniHTTP.Response(status: 400, body: "bad request\n")
                                              }
                                              return self.respond(method: head.method, path: head.path)
                                          },
                                          evicted: { self.evictions.add(1, ordering: .relaxed) })
                loop.run()
                close(listenFD)
                close(wakeReadFD)
                finished.signal()
            }
        }
        if !address.isLoopback {
            logger.warning("metrics endpoint bound to a non-loopback address; anyone who can reach it can read metrics",
                           metadata: ["address": "\(address)"])
        } else {
            logger.info("metrics endpoint listening", metadata: ["address": "\(address.host):\(boundPort ?? 0)"])
        }
    }

    /// Stops accepting, closes every connection and waits for the server thread to finish.
    public func stop() {
        guard let current = running.withLock({ state -> Running? in
            defer { state = nil }
            return state
        }) else { return }
        var byte: UInt8 = 1
        _ = write(current.wakeWriteFD, &byte, 1)
        current.finished.wait()
        close(current.wakeWriteFD)
    }

    /// Routing, separate from the socket code so it can be tested directly.
    func respond(method: String, path: String) -> MiniHTTP.Response {
        guard method == "GET" || method == "HEAD" else {
            return MiniHTTP.Response(status: 405, body: "method not allowed\n", extraHeaders: [("Allow", "GET, HEAD")])
        }
        switch path {
        case "/metrics":
            return MiniHTTP.Response(status: 200, contentType: Self.metricsContentType, body: exposition())
        case "/healthz":
            return MiniHTTP.Response(status: 200, body: "ok\n")
        case "/readyz":
            let status = readiness()
            let reason = LogSanitizer.cap(LogSanitizer.clean(status.reason), maxBytes: 1024)
            return MiniHTTP.Response(status: status.isReady ? 200 : 503, body: reason + "\n")
        default:
            return MiniHTTP.Response(status: 404, body: "not found\n")
        }
    }
}
