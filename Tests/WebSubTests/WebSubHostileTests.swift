import ArticleStore
import Foundation
import LoopbackHTTPServer
import Migrations
import Postgres
import Testing
import TestSupport
import Threads
import WebSub
#if canImport(Glibc)
import Glibc
#endif

/// A stranger who knows the callback's address: requests refused before their bodies are read,
/// bytes held over all pushes capped, hoarded and slow connections, forged verifications and
/// denials, leases out of range, pushes for sources no longer active, and http:// hubs.
@Suite(.tags(.integration), .needsDatabase)
struct WebSubHostileTests {
    typealias Setup = WebSubIntegrationTests

    /// `alpha` polled, subscribed and verified: its tokened callback and secret.
    static func subscribe(_ hub: LoopbackHub, _ daemon: WebSubDaemon, _ store: ArticleStore) async throws
        -> (callback: String, secret: String) {
        _ = try await Setup.poll(daemon, store)
        try await daemon.subscriber.runDue()
        let request = try #require(hub.subscription(for: daemon.callback("alpha")))
        return (request.callback, try #require(request.secret))
    }

    static func head(_ target: String, length: Int, signature: String?) -> String {
        var head = "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/atom+xml\r\n"
        if let signature { head += "X-Hub-Signature: \(signature)\r\n" }
        return head + "Content-Length: \(length)\r\n\r\n"
    }

    static func path(_ callback: String) -> String { LoopbackHub.split(callback).1 }

    @Test func refusedBeforeTheBodyIsRead() async throws {
        try await Setup.withSetup(maxBodyBytes: 1 << 20) { _, hub, daemon, store in
            let (callback, secret) = try await Self.subscribe(hub, daemon, store)
            let signature = HubSignature.header(body: [], secret: Array(secret.utf8))
            // Only the head is sent, announcing 16 MiB: each answer comes with no body byte sent.
            let cases: [(String, String?, Int, Int)] = [
                ("/websub/nobody/" + String(repeating: "a", count: 64), signature, 16 << 20, 404),
                ("/websub/alpha", signature, 16 << 20, 404),
                // The route is exactly /websub/{slug}/{token}: nothing more, nothing less, nowhere else.
                ("/websub/alpha/", signature, 16 << 20, 404),
                (Self.path(callback) + "/more", signature, 16 << 20, 404),
                (Self.path(callback).replacingOccurrences(of: "/websub/", with: "/other/"), signature, 16 << 20, 404),
                ("/websub/" + String(repeating: "s", count: 129) + "/t", signature, 16 << 20, 404),
                (Self.path(callback), nil, 16 << 20, 403),
                (Self.path(callback), "md5=00", 16 << 20, 403),
                (Self.path(callback), signature, 16 << 20, 413),
            ]
            for (target, signature, length, status) in cases {
                let reply = try await RawConnection.exchange(port: daemon.port, Self.head(target, length: length, signature: signature))
                #expect(reply.status == status, "\(target)")
                #expect(reply.closed, "the connection is closed after a refusal: \(target)")
            }
            await daemon.drain()
            #expect(try await Setup.rowCount(store) == 1)
        }
    }

    /// With room for one body only, a second push is told to come back (503, Retry-After) while
    /// the first is still arriving; the first is then stored.
    @Test func bytesHeldOverAllPushesAreCapped() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            let (_, secret) = try await Self.subscribe(hub, daemon, store)
            let small = try await WebSubDaemon(database: database, hubHost: Setup.hubHost, hubPort: hub.server.port,
                                               workerID: "daemon-small", budgetBytes: 64 * 1024)
            let token = try #require(hub.subscription(for: daemon.callback("alpha"))?.callback.split(separator: "/").last)
            let target = "/websub/alpha/\(token)"
            // Twice the padding (the feed's title and the entry's): a body of about 41 KiB.
            let padding = String(repeating: "x", count: 20 * 1024)
            let body = Array(Setup.entry(7).replacingOccurrences(of: "<title>Pushed", with: "<title>Pushed \(padding)").utf8)
            let signature = HubSignature.header(body: body, secret: Array(secret.utf8))
            let first = try await RawConnection.open(port: small.port)
            try await first.send(Array(Self.head(target, length: body.count, signature: signature).utf8) + body.prefix(1024))
            // The first push holds its bytes before the second arrives.
            for _ in 0..<1000 where small.receiver.budget.inUse == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(small.receiver.budget.inUse == body.count)
            let second = try await RawConnection.exchange(port: small.port, Self.head(target, length: body.count, signature: signature))
            #expect(second.status == 503 && second.headers.contains("retry-after: 30"))
            try await first.send(Array(body.dropFirst(1024)))
            let firstReply = try await first.reply()
            #expect(firstReply.status == 202, "\(firstReply)")
            first.close()
            await small.drain()
            #expect(try await Setup.rowCount(store) == 2)
            #expect(small.rejected.withLock { $0 } == ["busy"])
            await small.stop()
        }
    }

    /// A push is acknowledged only once queued: a full queue answers 503 with Retry-After.
    @Test func fullQueueIsNotAcknowledged() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            let (callback, secret) = try await Self.subscribe(hub, daemon, store)
            let token = String(callback.split(separator: "/").last ?? "")
            let held = try await WebSubDaemon(database: database, hubHost: Setup.hubHost, hubPort: hub.server.port,
                                              workerID: "daemon-held", queueLimit: 1, receiving: false)
            let target = held.callback("alpha") + "/" + token
            #expect(try await hub.push(Setup.entry(1), to: target, topic: Setup.topic, secret: secret).status == 202)
            #expect(try await hub.push(Setup.entry(2), to: target, topic: Setup.topic, secret: secret).status == 503)
            await held.drain()
            #expect(try await Setup.rowCount(store) == 2)
            #expect(held.rejected.withLock { $0 } == ["queue_full"])
            await held.stop()
        }
    }

    @Test func pushForAnInactiveSourceIsGone() async throws {
        try await Setup.withSetup { _, hub, daemon, store in
            let (callback, secret) = try await Self.subscribe(hub, daemon, store)
            try await store.connection.query("UPDATE public.sources SET is_active = false WHERE slug = 'alpha'", label: "off")
            #expect(try await hub.push(Setup.entry(1), to: callback, topic: Setup.topic, secret: secret).status == 410)
            await daemon.drain()
            #expect(try await Setup.rowCount(store) == 1)
        }
    }

    /// A denial is honoured only on the subscription's own callback while it is live, and its
    /// reason is stored cleaned.
    @Test func forgedDenialLeavesTheSubscriptionLive() async throws {
        try await Setup.withSetup { _, hub, daemon, store in
            let (callback, _) = try await Self.subscribe(hub, daemon, store)
            let denial = [("hub.mode", "denied"), ("hub.topic", Setup.topic), ("hub.reason", "\u{1b}[31mgone\u{202e}txt")]
            #expect(try await LoopbackHub.get(daemon.callback("alpha"), query: denial).status == 404)
            #expect(try await LoopbackHub.get(daemon.callback("alpha") + "/" + String(repeating: "f", count: 64),
                                              query: denial).status == 404)
            #expect(try await Setup.subscription(store)?.state == .subscribed)
            #expect(try await LoopbackHub.get(callback, query: denial).status == 200)
            let stored = try await store.connection.query("SELECT state, last_error FROM public.websub_subscriptions",
                                                          label: "denied").rows.first
            #expect(stored?["state"] == "denied")
            #expect(stored?["last_error"] == "[31mgonetxt")
            // Denied already: nothing in flight and no live lease, so a second denial is not ours.
            #expect(try await LoopbackHub.get(callback, query: denial).status == 404)
        }
    }

    /// A verification's lease must be digits in [60, what we asked]; anything else is refused and
    /// the request stays pending for the real hub.
    @Test func leaseOutOfRangeIsRefused() async throws {
        try await Setup.withSetup { _, hub, daemon, store in
            hub.verifies(false)
            _ = try await Setup.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let callback = try Setup.live(hub, daemon)
            func verify(_ lease: String?) async throws -> Int {
                var query = [("hub.mode", "subscribe"), ("hub.topic", Setup.topic), ("hub.challenge", "c1")]
                if let lease { query.append(("hub.lease_seconds", lease)) }
                return try await LoopbackHub.get(callback, query: query).status
            }
            for lease in [nil, "abc", "1e9", "-5", "0", "59", "864001", "31536000", " 600"] {
                #expect(try await verify(lease) == 404, "lease \(lease ?? "missing")")
                #expect(try await Setup.subscription(store)?.state == .pending)
            }
            #expect(try await verify("3600") == 200)
            let live = try #require(try await Setup.subscription(store))
            #expect(live.state == .subscribed)
            let left = try #require(live.leaseExpiresAt).timeIntervalSinceNow
            #expect(left > 3000 && left <= 3600)
        }
    }

    /// A subscription made before callback tokens is sent again with a tokened callback.
    @Test func subscriptionsWithoutATokenAreSentAgain() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            _ = try await Self.subscribe(hub, daemon, store)
            try await store.connection.query("UPDATE public.websub_subscriptions SET callback_token = NULL", label: "old row")
            let migration = try #require(Migration.all.first { $0.name == "websub callback tokens" })
            let owner = try await database.connect(serviceRole: false)
            try await owner.executeScript(migration.sql, label: "migration")
            await owner.close()
            #expect(try await daemon.subscriber.runDue() == 1)
            let resent = try #require(hub.requests.last)
            #expect(resent.mode == "subscribe" && resent.verification?.status == 200)
            #expect(resent.callback.count == daemon.callback("alpha").count + 65)
            let live = try #require(try await Setup.subscription(store))
            #expect(live.state == .subscribed && live.callbackToken.map { resent.callback.hasSuffix("/" + $0) } == true)
        }
    }

    /// A restart makes every subscribed source due within the minute: pushes acknowledged before a
    /// crash come back through the poll.
    @Test func aRestartPollsSubscribedSourcesSoon() async throws {
        try await Setup.withSetup { _, hub, daemon, store in
            _ = try await Self.subscribe(hub, daemon, store)
            try await store.connection.query("UPDATE public.sources SET next_due_at = now() + interval '1 day'", label: "later")
            #expect(try await store.pollSubscribedSourcesSoon(spread: .seconds(60)) == 1)
            let due = try await store.connection.query("""
                SELECT due_at <= now() + interval '60 seconds' AS soon FROM public.sources WHERE slug = 'alpha'
                """, label: "due").rows.first?.bool("soon")
            #expect(due == true)
            // Already due within the minute: left alone.
            #expect(try await store.pollSubscribedSourcesSoon(spread: .seconds(60)) == 0)
        }
    }

    @Test func httpHubsAreNotSentTheSecret() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            let strict = try await WebSubDaemon(database: database, hubHost: Setup.hubHost, hubPort: hub.server.port,
                                                workerID: "daemon-strict", allowHTTPHubs: false)
            _ = try await Setup.poll(strict, store)
            #expect(try await strict.subscriber.runDue() == 1)
            #expect(hub.requests.isEmpty)
            let failed = try #require(try await Setup.subscription(store))
            #expect(failed.state == .failed)
            let error = try await store.connection.query("SELECT last_error FROM public.websub_subscriptions",
                                                         label: "error").rows.first?["last_error"]
            #expect(error?.contains("allow_http_hubs") == true)
            // Not retried: nothing is due again.
            #expect(try await strict.subscriber.runDue(now: Date().addingTimeInterval(7 * 86_400)) == 0)
            await strict.stop()
            _ = daemon
        }
    }

    /// 500 connections from one address, each holding half a head open: all but the per-client
    /// cap are closed at once, and a push from another address is answered.
    @Test func hoardedConnectionsDoNotBlockAPush() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            let (callback, secret) = try await Self.subscribe(hub, daemon, store)
            let token = String(callback.split(separator: "/").last ?? "")
            let guarded = try await WebSubDaemon(database: database, hubHost: Setup.hubHost, hubPort: hub.server.port,
                                                 workerID: "daemon-guarded", limits: { $0.connection.headerTimeout = .seconds(600) })
            let hoard = try await OffPool.run { () throws -> [Int32] in
                try (0..<500).map { _ in
                    let fd = try LoopbackSocket.connected(port: guarded.port, from: "127.0.0.2")
                    _ = "POST /websub/alpha/x HTTP/1.1\r\nHost: a\r\n".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                    return fd
                }
            }
            defer { hoard.forEach { close($0) } }
            let reply = try await hub.push(Setup.entry(3), to: guarded.callback("alpha") + "/" + token, topic: Setup.topic,
                                           secret: secret)
            #expect(reply.status == 202)
            let closed = try await OffPool.run { RawConnection.countClosed(hoard, atLeast: 500 - 64) }
            #expect(closed == 500 - 64)
            await guarded.drain()
            #expect(try await Setup.rowCount(store) == 2)
            await guarded.stop()
        }
    }

    /// Half a head, or a body that stops arriving, is closed at its deadline.
    @Test func slowHeadsAndStalledBodiesAreClosed() async throws {
        try await Setup.withSetup { database, hub, daemon, store in
            let (callback, secret) = try await Self.subscribe(hub, daemon, store)
            let token = String(callback.split(separator: "/").last ?? "")
            let strict = try await WebSubDaemon(database: database, hubHost: Setup.hubHost, hubPort: hub.server.port,
                                                workerID: "daemon-deadlines", limits: {
                                                    $0.connection.headerTimeout = .milliseconds(200)
                                                    $0.connection.bodyIdleTimeout = .milliseconds(200)
                                                })
            let slowHead = try await RawConnection.open(port: strict.port)
            try await slowHead.send(Array("POST /websub/al".utf8))
            #expect(try await slowHead.reply().closed)
            slowHead.close()
            let body = Array(Setup.entry(4).utf8)
            let stalled = try await RawConnection.open(port: strict.port)
            try await stalled.send(Array(Self.head("/websub/alpha/\(token)", length: body.count,
                                                   signature: HubSignature.header(body: body, secret: Array(secret.utf8))).utf8)
                                   + body.prefix(10))
            let answer = try await stalled.reply()
            #expect(answer.closed && (answer.status == nil || answer.status == 400))
            stalled.close()
            await strict.drain()
            #expect(try await Setup.rowCount(store) == 1)
            await strict.stop()
        }
    }
}

/// A blocking raw connection to the listener (off the cooperative pool): requests cut short on
/// purpose, and whether the server closed the connection after its answer.
final class RawConnection: Sendable {
    struct Reply: Sendable {
        var status: Int?
        var headers: String
        var closed: Bool
    }

    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    static func open(port: Int) async throws -> RawConnection {
        RawConnection(fd: try await OffPool.run { try LoopbackSocket.connected(port: port) })
    }

    /// Sends `head` and reads the answer.
    static func exchange(port: Int, _ head: String) async throws -> Reply {
        let connection = try await open(port: port)
        defer { connection.close() }
        try await connection.send(Array(head.utf8))
        return try await connection.reply()
    }

    func send(_ bytes: [UInt8]) async throws {
        let fd = self.fd
        try await OffPool.run {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { throw LoopbackClient.ClientError.send }
                offset += sent
            }
        }
    }

    /// Reads until the server closes or the socket's 10 s receive timeout: the status, the
    /// lowercased head, and whether the server closed the connection.
    func reply() async throws -> Reply {
        let fd = self.fd
        return try await OffPool.run {
            var data = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            var closed = false
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                // A close with bytes still unread on the server's side arrives as a reset.
                if n == 0 || (n < 0 && errno == ECONNRESET) { closed = true; break }
                if n < 0 { break }
                data.append(contentsOf: chunk[0..<n])
                // A complete answer on a connection the server keeps: stop at the end of its body.
                if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                    if let length, data.count - end.upperBound >= length, !head.contains("connection: close") { break }
                }
            }
            let text = String(decoding: data, as: UTF8.self)
            let head = text.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
            let parts = head.split(separator: " ")
            let status = parts.count >= 2 ? Int(parts[1]) : nil
            return Reply(status: status, headers: head, closed: closed)
        }
    }

    func close() { Glibc.close(fd) }

    /// How many of `fds` the server has closed, waiting (at most 10 s) until `atLeast` are.
    static func countClosed(_ fds: [Int32], atLeast wanted: Int) -> Int {
        var closed = Set<Int32>()
        for _ in 0..<100 where closed.count < wanted {
            var polls = fds.filter { !closed.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&polls, nfds_t(polls.count), 100)
            var byte: UInt8 = 0
            for entry in polls where entry.revents != 0 && recv(entry.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 {
                closed.insert(entry.fd)
            }
        }
        return closed.count
    }
}
