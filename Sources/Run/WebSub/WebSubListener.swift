import ArticleStore
import FoundationEssentials
import HTTPFetcher
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Observability

/// The callback endpoint hubs call, on Hummingbird (HTTP/1.1 on SwiftNIO): `GET /websub/{slug}`
/// answers verification of intent, `POST /websub/{slug}` takes content distribution; everything
/// else is 404. It faces the internet (behind the operator's TLS proxy), so headers, bodies,
/// connections and request time are all capped, and a push is answered before it is stored.
public struct WebSubListener: Sendable {
    public struct Limits: Sendable {
        /// A push body past this is refused with 413 (the feed body limit).
        public var maxBodyBytes: Int
        public var maxHeaderBytes = 16 * 1024
        public var maxConnections = 256
        /// Idle time on a connection, and the longest a request's body may take to arrive.
        public var requestTimeout: Duration = .seconds(30)

        public init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }
    }

    public let host: String
    public let port: Int
    public let limits: Limits
    let store: ArticleStore
    let receiver: PushReceiver
    let subscriber: WebSubSubscriber.Settings
    let logger: Logger

    public init(host: String, port: Int, limits: Limits, store: ArticleStore, receiver: PushReceiver,
                subscriber: WebSubSubscriber.Settings, logger: Logger) {
        self.host = host
        self.port = port
        self.limits = limits
        self.store = store
        self.receiver = receiver
        self.subscriber = subscriber
        self.logger = logger
    }

    /// Serves until the task is cancelled. `onBound` is told the port (useful with port 0).
    public func run(onBound: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let handler = self
        let listener = HTTPListener(host: host, port: port, maxConnections: limits.maxConnections,
                                    idleTimeout: limits.requestTimeout, maxHeaderBytes: limits.maxHeaderBytes)
        try await listener.run(logger: logger, onBound: onBound) { request in await handler.respond(to: request) }
    }

    /// The slug of `/websub/{slug}`, nil for any other path.
    static func slug(of path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, parts[1] == "websub", !parts[2].isEmpty, parts[2].utf8.count <= 128
        else { return nil }
        return String(parts[2])
    }

    func respond(to request: Request) async -> Response {
        guard let slug = Self.slug(of: request.uri.path) else { return HTTPListener.plain(.notFound, "not found") }
        do {
            switch request.method {
            case .get: return try await verify(request, slug: slug)
            case .post: return try await distribute(request, slug: slug)
            default: return HTTPListener.plain(.notFound, "not found")
            }
        } catch {
            // The database is down: 503 makes a hub retry later, as the spec expects of a failure.
            logger.error("websub request failed", metadata: ["source": "\(slug)", "error": "\(error)"])
            return HTTPListener.plain(.serviceUnavailable, "try again later")
        }
    }

    /// Verification of intent (W3C WebSub 5.3): the challenge, only for a pending request of this
    /// source and topic; a denial (5.2) is recorded. Anything else is 404.
    func verify(_ request: Request, slug: String) async throws -> Response {
        let query = request.uri.queryParameters
        guard let mode = query["hub.mode"].map(String.init), let topic = query["hub.topic"].map(String.init) else {
            return HTTPListener.plain(.notFound, "not found")
        }
        switch mode {
        case "subscribe", "unsubscribe":
            guard let challenge = query["hub.challenge"].map(String.init), !challenge.isEmpty, challenge.utf8.count <= 1024 else {
                return HTTPListener.plain(.notFound, "not found")
            }
            let lease = query["hub.lease_seconds"].flatMap { Int($0) }.map { min(max($0, 0), 365 * 86_400) }
            let now = Date()
            let renewAt = lease.map { subscriber.renewAt(leaseSeconds: $0, from: now) }
            let accepted = try await store.confirmWebSub(slug: slug, mode: mode == "subscribe" ? .subscribe : .unsubscribe,
                                                         topic: topic, leaseSeconds: lease, renewAt: renewAt, at: now)
            receiver.events.verification(mode, accepted)
            guard accepted else { return HTTPListener.plain(.notFound, "not found") }
            logger.info("websub verified", metadata: ["source": "\(slug)", "mode": "\(mode)", "lease": "\(lease ?? 0)"])
            return HTTPListener.plain(.ok, challenge)
        case "denied":
            let reason = query["hub.reason"].map { String($0.prefix(500)) }
            let accepted = try await store.denyWebSub(slug: slug, topic: topic, reason: reason,
                                                      retryAt: Date().addingTimeInterval(86_400))
            receiver.events.verification(mode, accepted)
            guard accepted else { return HTTPListener.plain(.notFound, "not found") }
            logger.warning("websub subscription denied by the hub", metadata: ["source": "\(slug)", "reason": "\(reason ?? "")"])
            return HTTPListener.plain(.ok, "ok")
        default:
            return HTTPListener.plain(.notFound, "not found")
        }
    }

    /// Content distribution (W3C WebSub 7): read the body up to the limit, check its signature,
    /// answer, then store it. A push with a missing or wrong signature is answered 202 as well
    /// (the spec allows it, and it tells a forger nothing) and stored nowhere.
    func distribute(_ request: Request, slug: String) async throws -> Response {
        let received = ContinuousClock.now
        guard let subscription = try await store.webSubSubscription(slug: slug) else { return HTTPListener.plain(.notFound, "not found") }
        // A push names its topic in `Link: <topic>; rel="self"`; one for another topic is not ours.
        let links = LinkHeader.parse(Self.header("link", in: request.headers, joined: true))
        if let topic = LinkHeader.first("self", in: links), topic != subscription.topic {
            receiver.events.pushRejected("unknown_topic")
            return HTTPListener.plain(.notFound, "not found")
        }
        receiver.events.pushReceived()
        let body: ByteBuffer
        do {
            body = try await Self.withTimeout(limits.requestTimeout) { [limits] in
                try await request.body.collect(upTo: limits.maxBodyBytes)
            }
        } catch is NIOTooManyBytesError {
            receiver.events.pushRejected("too_large")
            return HTTPListener.plain(.contentTooLarge, "body too large")
        } catch {
            receiver.events.pushRejected("read_failed")
            return HTTPListener.plain(.requestTimeout, "body not received")
        }
        let bytes = Array(body.readableBytesView)
        let signature = Self.header("x-hub-signature", in: request.headers)
        let verdict = HubSignature.verify(header: signature, body: bytes, secret: Array(subscription.secret.utf8))
        guard verdict == .valid, subscription.state == .subscribed || subscription.state == .pending else {
            receiver.events.pushRejected(verdict == .valid ? "not_subscribed" : verdict.rawValue)
            logger.notice("websub push refused", metadata: ["source": "\(slug)", "reason": "\(verdict.rawValue)"])
            return HTTPListener.plain(.accepted, "accepted")
        }
        receiver.enqueue(PushJob(slug: slug, body: bytes, contentType: request.headers[.contentType], received: received))
        return HTTPListener.plain(.accepted, "accepted")
    }

    /// A request header by lowercased name (the last one, or all joined with ", ").
    static func header(_ name: String, in fields: HTTPFields, joined: Bool = false) -> String? {
        let values = fields.filter { $0.name.canonicalName == name }.map(\.value)
        if values.isEmpty { return nil }
        return joined ? values.joined(separator: ", ") : values.last
    }

    struct TimedOut: Error {}

    static func withTimeout<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask { try await Task.sleep(for: limit); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw TimedOut() }
            return value
        }
    }
}
