import Foundation
import LoopbackHTTPServer
import Threads
import Synchronization
import WebSub

/// A WebSub hub of our own on 127.0.0.1 for the tests: takes subscription requests (form POSTs),
/// verifies intent against the callback (before answering 202, so a test that sent a request
/// finds it verified without waiting on a clock), remembers each callback's secret, and pushes
/// signed content. It also serves the feeds that name it.
public final class LoopbackHub: Sendable {
    public struct Subscription: Sendable {
        public var mode: String
        public var topic: String
        public var callback: String
        public var secret: String?
        public var leaseSeconds: Int?
        /// The callback's answer to the verification: status and body.
        public var verification: (status: Int, body: String)?
    }

    public let server: LoopbackHTTPServer
    typealias State = (requests: [Subscription], feeds: [String: (body: String, link: String?)], lease: Int?, verify: Bool)
    private let state = Locked<State>(([], [:], nil, true))

    public init() throws {
        let state = self.state
        server = try LoopbackHTTPServer(routes: [
            "/hub": { request, connection, _ in
                guard request.method == "POST" else { connection.respond(405, "Method Not Allowed"); return }
                let form = LoopbackHub.form(request.body)
                guard let mode = form["hub.mode"], let topic = form["hub.topic"], let callback = form["hub.callback"] else {
                    connection.respond(400, "Bad Request")
                    return
                }
                let (grant, verify) = state.withLock { ($0.lease, $0.verify) }
                var subscription = Subscription(mode: mode, topic: topic, callback: callback, secret: form["hub.secret"],
                                                leaseSeconds: grant ?? form["hub.lease_seconds"].flatMap { Int($0) })
                if verify { subscription.verification = LoopbackHub.verify(subscription) }
                state.withLock { $0.requests.append(subscription) }
                connection.respond(202, "Accepted")
            },
            "/feeds/": { request, connection, _ in
                let feed = state.withLock { $0.feeds[request.path] }
                guard let feed else { connection.respond(404, "Not Found"); return }
                var headers = [("Content-Type", "application/atom+xml")]
                if let link = feed.link { headers.append(("Link", link)) }
                connection.respond(200, headers: headers, body: Array(feed.body.utf8))
            },
        ])
    }

    public var base: String { server.base }
    public var hubURL: String { server.base + "/hub" }
    public var requests: [Subscription] { state.withLock { $0.requests } }
    public func stop() { server.stop() }

    /// The lease the hub grants whatever is asked (nil: as asked); whether it verifies at all.
    public func grant(leaseSeconds: Int?) { state.withLock { $0.lease = leaseSeconds } }
    public func verifies(_ verify: Bool) { state.withLock { $0.verify = verify } }

    /// Serves `body` at `path` (under /feeds/), with a `Link` header when given.
    public func serve(_ path: String, body: String, link: String? = nil) {
        state.withLock { $0.feeds[path] = (body, link) }
    }

    /// The last subscribe request whose callback is `callback` or under it (`{prefix}/{slug}`
    /// finds `{prefix}/{slug}/{token}`).
    public func subscription(for callback: String) -> Subscription? {
        requests.last { ($0.callback == callback || $0.callback.hasPrefix(callback + "/")) && $0.mode == "subscribe" }
    }

    /// Content distribution: POSTs `body` to `callback` signed with `secret` (nil: unsigned).
    /// The client blocks, so it runs off the cooperative pool (the listener's handlers need it).
    public func push(_ body: String, to callback: String, topic: String, secret: String?, algorithm: String = "sha256",
              forgedSignature: Bool = false) async throws -> LoopbackClient.Reply {
        var headers = [("Content-Type", "application/atom+xml"), ("Link", "<\(hubURL)>; rel=\"hub\", <\(topic)>; rel=\"self\"")]
        if let secret {
            let key = forgedSignature ? Array("not-the-secret".utf8) : Array(secret.utf8)
            headers.append(("X-Hub-Signature", HubSignature.header(algorithm: algorithm, body: Array(body.utf8), secret: key) ?? "\(algorithm)=00ff"))
        }
        let (port, path) = Self.split(callback)
        let payload = Array(body.utf8), fields = headers
        return try await OffPool.run { try LoopbackClient.request(port: port, method: "POST", target: path, headers: fields, body: payload) }
    }

    /// A verification GET of the hub's choosing (for the 404 cases).
    public static func get(_ callback: String, query: [(String, String)]) async throws -> LoopbackClient.Reply {
        try await OffPool.run { try getBlocking(callback, query: query) }
    }

    /// Another request off the cooperative pool.
    public static func request(port: Int, method: String, target: String) async throws -> LoopbackClient.Reply {
        try await OffPool.run { try LoopbackClient.request(port: port, method: method, target: target) }
    }

    static func getBlocking(_ callback: String, query: [(String, String)]) throws -> LoopbackClient.Reply {
        let (port, path) = split(callback)
        let q = query.map { "\($0.0)=\(LoopbackClient.escape($0.1))" }.joined(separator: "&")
        return try LoopbackClient.request(port: port, method: "GET", target: path + "?" + q)
    }

    static func verify(_ subscription: Subscription) -> (Int, String)? {
        let challenge = UUID().uuidString
        var query = [("hub.mode", subscription.mode), ("hub.topic", subscription.topic), ("hub.challenge", challenge)]
        if let lease = subscription.leaseSeconds, subscription.mode == "subscribe" { query.append(("hub.lease_seconds", "\(lease)")) }
        guard let reply = try? getBlocking(subscription.callback, query: query) else { return nil }
        return (reply.status, reply.text)
    }

    /// `http://127.0.0.1:PORT/path` -> (PORT, /path).
    public static func split(_ url: String) -> (Int, String) {
        let rest = url.dropFirst("http://127.0.0.1:".count)
        let port = Int(rest.prefix { $0.isNumber }) ?? 0
        return (port, String(rest.drop { $0.isNumber }))
    }

    static func form(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }

    public static func atom(title: String, hub: String?, topic: String?, entries: [(id: String, url: String)]) -> String {
        var links = ""
        if let hub { links += "<link rel=\"hub\" href=\"\(hub)\"/>" }
        if let topic { links += "<link rel=\"self\" href=\"\(topic)\"/>" }
        let items = entries.map {
            "<entry><title>\(title) \($0.id)</title><id>\($0.id)</id><link href=\"\($0.url)\"/>"
                + "<updated>\(ISO8601DateFormatter().string(from: Date()))</updated></entry>"
        }.joined()
        return "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>\(title)</title>\(links)\(items)</feed>"
    }
}

/// A mutex the hub's routes and the tests share (a class: `Mutex` itself cannot be captured).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
