import ArticleStore
import FoundationEssentials
import HTTPFetcher
import HTTPServer
import Hummingbird
import Logging
import NIOCore
import PulseModel
import ServiceLifecycle

/// The callback endpoint hubs call, on Hummingbird (HTTP/1.1 on SwiftNIO):
/// `GET /websub/{slug}/{token}` answers verification of intent, `POST /websub/{slug}/{token}`
/// takes content distribution; anything else is 404. It faces the internet, so nothing is read
/// before it can be authenticated: the path's token (random per subscription, compared in
/// constant time) and the signature header are checked before a body's first byte, the MAC is
/// computed as the body streams in, and the bytes held over all pushes are capped.
public struct WebSubListener: Sendable {
    public struct Limits: Sendable {
        /// A push body past this is refused with 413 (the feed body limit).
        public var maxBodyBytes: Int
        public var maxHeaderBytes = 16 * 1024
        public var maxConnections = 1024
        /// Deadlines and the per-address cap of each connection (`ConnectionGuard`).
        public var connection = ConnectionLimits(headerTimeout: .seconds(5), bodyIdleTimeout: .seconds(10),
                                                 requestTimeout: .seconds(30), perClient: 64)

        public init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }
    }

    /// What a refused or deferred push is told to wait before the hub sends it again.
    static let retryAfterSeconds = 30

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

    /// The listener as a `Service` (`HTTPListener.service`); `onBound` is told the port.
    public func service(onBound: @escaping @Sendable (Int) -> Void = { _ in }) -> Listening {
        let listener = HTTPListener(host: host, port: port, maxConnections: limits.maxConnections,
                                    limits: limits.connection, maxHeaderBytes: limits.maxHeaderBytes)
        return listener.service(router: router(), logger: logger, onBound: onBound)
    }

    /// `/websub/{slug}/{token}`; any other path or method is 404, closed before a body is read.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: UnmatchedRoute { _ in Self.notFound })
        let handler = self
        router.get("/websub/:slug/:token") { request, context in
            await handler.answer(request, context) { try await handler.verify(request, slug: $0, token: $1) }
        }
        router.post("/websub/:slug/:token") { request, context in
            await handler.answer(request, context) { try await handler.distribute(request, slug: $0, token: $1) }
        }
        return router
    }

    static var notFound: Response { HTTPListener.closing(.notFound, "not found") }

    /// The route's slug and token (each at most 128 bytes) to `body`; a database failure is 503.
    func answer(_ request: Request, _ context: BasicRequestContext,
                _ body: (String, String) async throws -> Response) async -> Response {
        guard let slug = context.parameters.get("slug"), let token = context.parameters.get("token"),
              slug.utf8.count <= 128, token.utf8.count <= 128 else { return Self.notFound }
        do {
            return try await body(slug, token)
        } catch {
            // The database is down: 503 makes a hub retry later, as the spec expects of a failure.
            logger.error("websub request failed", metadata: ["source": "\(slug)", "error": "\(error)"])
            return HTTPListener.closing(.serviceUnavailable, "try again later", retryAfter: Self.retryAfterSeconds)
        }
    }

    /// The subscription the callback names, when its token matches.
    func subscription(slug: String, token: String) async throws -> WebSubSubscription? {
        guard let found = try await store.webSubSubscription(slug: slug),
              HubSignature.sameToken(found.callbackToken, token) else { return nil }
        return found
    }

    /// Verification of intent (W3C WebSub 5.3): the challenge, only on the subscription's own
    /// callback, for its pending request and topic, with a lease we can live with; a denial (5.2)
    /// only while a request is in flight or a lease is live. Anything else is 404.
    func verify(_ request: Request, slug: String, token: String) async throws -> Response {
        let query = request.uri.queryParameters
        guard let mode = query["hub.mode"].map(String.init), let topic = query["hub.topic"].map(String.init),
              let subscription = try await subscription(slug: slug, token: token) else { return Self.notFound }
        let now = Date()
        switch mode {
        case "subscribe", "unsubscribe":
            guard let challenge = query["hub.challenge"].map(String.init), !challenge.isEmpty, challenge.utf8.count <= 1024 else {
                return Self.notFound
            }
            var lease: Int?
            if mode == "subscribe" {
                let asked = query["hub.lease_seconds"].map(String.init)
                guard let granted = Self.lease(asked, max: subscriber.leaseSeconds) else {
                    logger.warning("websub verification refused: lease out of range", metadata: [
                        "source": "\(slug)", "lease": "\(StoredText.singleLine(asked, limit: 40) ?? "none")",
                        "allowed": "60...\(subscriber.leaseSeconds)"])
                    receiver.events.verification(mode, false)
                    return Self.notFound
                }
                lease = granted
            }
            let accepted = try await store.confirmWebSub(
                slug: slug, token: token, mode: mode == "subscribe" ? .subscribe : .unsubscribe, topic: topic,
                leaseSeconds: lease, renewAt: lease.map { subscriber.renewAt(leaseSeconds: $0, from: now) }, at: now)
            receiver.events.verification(mode, accepted)
            guard accepted else { return Self.notFound }
            logger.info("websub verified", metadata: ["source": "\(slug)", "mode": "\(mode)", "lease": "\(lease ?? 0)"])
            return HTTPListener.plain(.ok, challenge)
        case "denied":
            let live = subscription.requestedAt != nil
                || (subscription.state == .subscribed && (subscription.leaseExpiresAt.map { $0 > now } ?? false))
            let reason = StoredText.singleLine(query["hub.reason"].map(String.init), limit: 500)
            let accepted = live ? try await store.denyWebSub(slug: slug, token: token, topic: topic, reason: reason,
                                                             retryAt: now.addingTimeInterval(86_400), at: now) : false
            receiver.events.verification(mode, accepted)
            guard accepted else { return Self.notFound }
            logger.warning("websub subscription denied by the hub", metadata: ["source": "\(slug)", "reason": "\(reason ?? "")"])
            return HTTPListener.plain(.ok, "ok")
        default:
            return Self.notFound
        }
    }

    /// A verification's `hub.lease_seconds`: digits only, at least a minute, at most what we asked.
    static func lease(_ text: String?, max asked: Int) -> Int? {
        guard let text, !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let value = Int(text), (60...Swift.max(60, asked)).contains(value) else { return nil }
        return value
    }

    /// Content distribution (W3C WebSub 7). Refused before the body is read: a callback that is
    /// not a live subscription's (404; 410 once its source is inactive), another topic (404), no
    /// or an unusable signature header (403), a declared length past the limit (413), or no room
    /// in the bytes held over all pushes (503). Then the body streams through the MAC; a wrong
    /// signature is answered 202 as the spec allows (it tells a forger nothing) and stored nowhere;
    /// a valid push is answered 202 only once it is queued (else 503 with `Retry-After`).
    func distribute(_ request: Request, slug: String, token: String) async throws -> Response {
        let received = ContinuousClock.now
        let events = receiver.events
        guard let subscription = try await subscription(slug: slug, token: token) else { return Self.notFound }
        guard subscription.sourceActive else {
            events.pushRejected("inactive_source")
            return HTTPListener.closing(.gone, "this source is no longer active")
        }
        guard subscription.state == .subscribed || subscription.state == .pending else {
            events.pushRejected("not_subscribed")
            return Self.notFound
        }
        // A push names its topic in `Link: <topic>; rel="self"`; one for another topic is not ours.
        let links = LinkHeader.parse(Self.header("link", in: request.headers, joined: true))
        if let topic = LinkHeader.first("self", in: links), topic != subscription.topic {
            events.pushRejected("unknown_topic")
            return Self.notFound
        }
        let verifier: HubSignature.Verifier
        switch HubSignature.Verifier.start(header: Self.header("x-hub-signature", in: request.headers),
                                           secret: Array(subscription.secret.utf8)) {
        case .failure(let refusal):
            events.pushRejected(refusal.verdict.rawValue)
            return HTTPListener.closing(.forbidden, "a valid X-Hub-Signature is required")
        case .success(let started): verifier = started
        }
        events.pushReceived()
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > limits.maxBodyBytes {
            events.pushRejected("too_large")
            return HTTPListener.closing(.contentTooLarge, "body too large")
        }
        let budget = receiver.budget
        if let declared, !budget.reserve(declared) {
            events.pushRejected("busy")
            return HTTPListener.closing(.serviceUnavailable, "busy, try again later", retryAfter: Self.retryAfterSeconds)
        }
        var held = declared ?? 0
        var body = [UInt8]()
        body.reserveCapacity(declared ?? 0)
        do {
            for try await chunk in request.body {
                let size = chunk.readableBytes
                if body.count + size > limits.maxBodyBytes {
                    budget.release(held)
                    events.pushRejected("too_large")
                    return HTTPListener.closing(.contentTooLarge, "body too large")
                }
                // A body of no declared length (chunked) is held a piece at a time.
                if body.count + size > held {
                    guard budget.reserve(body.count + size - held) else {
                        budget.release(held)
                        events.pushRejected("busy")
                        return HTTPListener.closing(.serviceUnavailable, "busy, try again later",
                                                    retryAfter: Self.retryAfterSeconds)
                    }
                    held = body.count + size
                }
                chunk.withUnsafeReadableBytes { verifier.update($0) }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            budget.release(held)
            events.pushRejected("read_failed")
            return HTTPListener.closing(.badRequest, "body not received")
        }
        let verdict = verifier.finish()
        guard verdict == .valid else {
            budget.release(held)
            events.pushRejected(verdict.rawValue)
            logger.notice("websub push refused", metadata: ["source": "\(slug)", "reason": "\(verdict.rawValue)"])
            return HTTPListener.plain(.accepted, "accepted")
        }
        let job = PushJob(slug: slug, sourceID: subscription.sourceID, body: body, heldBytes: held,
                          contentType: request.headers[.contentType], received: received)
        guard receiver.enqueue(job) else {
            return HTTPListener.closing(.serviceUnavailable, "busy, try again later", retryAfter: Self.retryAfterSeconds)
        }
        return HTTPListener.plain(.accepted, "accepted")
    }

    /// A request header by lowercased name (the last one, or all joined with ", ").
    static func header(_ name: String, in fields: HTTPFields, joined: Bool = false) -> String? {
        let values = fields.filter { $0.name.canonicalName == name }.map(\.value)
        if values.isEmpty { return nil }
        return joined ? values.joined(separator: ", ") : values.last
    }
}
