#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Logging
import Synchronization

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

/// `/metrics`, `/healthz` and `/readyz` over plain POSIX sockets on one dedicated thread.
///
/// Hand-written (no SwiftNIO, too heavy to build here): requests are tiny and rare (a scrape every
/// few seconds), so one thread serving one connection at a time is enough. Each connection gets
/// one request, an 8 KB head limit and a read deadline, so a slow or hostile client can hold the
/// thread for at most `requestTimeout`.
public final class MetricsServer: Sendable {
    public let address: MetricsAddress
    public let requestTimeout: Duration
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
    public init(address: MetricsAddress, requestTimeout: Duration = .seconds(2),
                logger: Logger = Logger(label: "pulse.metrics"),
                exposition: @escaping @Sendable () -> String,
                readiness: @escaping @Sendable () -> Readiness) {
        self.address = address
        self.requestTimeout = requestTimeout
        self.logger = logger
        self.exposition = exposition
        self.readiness = readiness
    }

    public convenience init(address: MetricsAddress, metrics: PulseMetrics,
                            logger: Logger = Logger(label: "pulse.metrics"),
                            readiness: @escaping @Sendable () -> Readiness) {
        self.init(address: address, logger: logger, exposition: { metrics.exposition() }, readiness: readiness)
    }

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
            let thread = Thread { [self] in
                acceptLoop(listenFD: listenFD, wakeReadFD: wakeReadFD)
                close(listenFD)
                close(wakeReadFD)
                finished.signal()
            }
            thread.name = "pulse-metrics-http"
            thread.start()
        }
        if !address.isLoopback {
            logger.warning("metrics endpoint bound to a non-loopback address; anyone who can reach it can read metrics",
                           metadata: ["address": "\(address)"])
        } else {
            logger.info("metrics endpoint listening", metadata: ["address": "\(address.host):\(boundPort ?? 0)"])
        }
    }

    /// Stops accepting, waits for the server thread (at most one in-flight request) to finish.
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

    // MARK: serving

    private func acceptLoop(listenFD: Int32, wakeReadFD: Int32) {
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("metrics endpoint poll failed", metadata: ["errno": "\(errno)"])
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                // Out of descriptors: back off instead of spinning on a readable listen socket.
                if errno == EMFILE || errno == ENFILE { _ = poll(nil, 0, 100) }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            serve(client: client)
        }
    }

    private func serve(client: Int32) {
        let deadline = ContinuousClock.now + requestTimeout
        SocketOps.setSendTimeout(client, requestTimeout)
        let response: MiniHTTP.Response?
        var isHead = false
        switch SocketOps.readHead(client, deadline: deadline, limit: MiniHTTP.maxHeaderBytes) {
        case .head(let bytes):
            if let head = MiniHTTP.parseHead(bytes[...]) {
                isHead = head.method == "HEAD"
                response = respond(method: head.method, path: head.path)
            } else {
                response = MiniHTTP.Response(status: 400, body: "bad request\n")
            }
        case .tooLarge:
            response = MiniHTTP.Response(status: 431, body: "request header too large\n")
        case .timedOut:
            response = MiniHTTP.Response(status: 408, body: "request timeout\n")
        case .closed:
            response = nil
        }
        if let response {
            SocketOps.sendAll(client, response.serialized(includeBody: !isHead))
        }
        SocketOps.lingeringClose(client)
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
